static int h0(int p0)
{
    if (p0 >= 10)
        return p0 - 10;
    return p0;
}

int f(int a, int b)
{
    int x = h0(a);
    return x + b;
}
