int g;

int f(int a, int b, char c)
{
    return 0;
}
