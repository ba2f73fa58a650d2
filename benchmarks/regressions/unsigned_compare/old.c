int f(int a)
{
    unsigned u = a;
    if (u < 5)
        return 1;
    return 0;
}
