/* entry: ushort_promote */
/* unsigned short and unsigned char promote to (signed) int, unsigned int does not: differences
   can be negative; division and remainder with mixed signedness. */
int ushort_promote(unsigned short a, unsigned short b, unsigned c)
{
    int r = 0;
    if (a - b < 0)
        r |= 1;
    if ((unsigned char)a - (unsigned char)b < 0)
        r |= 2;
    if (c - 1u < 0)
        r |= 4;
    if ((unsigned short)(a - b) > 30000)
        r |= 8;
    if (-a < 0)
        r |= 16;
    r += (a - b) / 7;
    r += (int)((c - a) / 3u % 1000u);
    r += -7 / 2 + -7 % 2 + (int)(-7 / 2u % 10u) + (int)(10u / -2);
    return r;
}
