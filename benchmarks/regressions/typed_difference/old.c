int f(signed char a)
{
    unsigned long x = 4;
    if ((x - ((a >= 10) ? 16 : 255)) <= 10)
        return 1;
    return 0;
}
