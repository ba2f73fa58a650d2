int f(int a)
{
    char x = a;
    return x + 1;
}
