int g;

int f(int a, int b, char c)
{
    g = 0;
    return 0;
}
