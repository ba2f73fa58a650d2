int f(int a)
{
    if (a < 5)
        return 1;
    return 0;
}
