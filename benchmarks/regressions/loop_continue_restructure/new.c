int f(char c)
{
    int x = 0;
    int i0 = 0;
    while (i0 < 7) {
        if ((i0 & 1) != 0)
            x = x + c;
        i0++;
    }
    return x;
}
