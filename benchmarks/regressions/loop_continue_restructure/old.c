int f(char c)
{
    int x = 0;
    int i0 = 0;
    for (i0 = 0; i0 < 7; i0++) {
        if ((i0 & 1) == 0)
            continue;
        x += c;
    }
    return x;
}
