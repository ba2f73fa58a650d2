int f(signed char a)
{
    short x = 4;
    if ((x - ((a >= 10) ? 16 : 255)) <= 10)
        return 1;
    return 0;
}
