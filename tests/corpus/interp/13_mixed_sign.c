/* entry: mixed_cmp */
/* Mixed signed/unsigned comparisons and arithmetic: -1 < 1u is false, int converted to unsigned. */
int mixed_cmp(int a, unsigned b)
{
    int r = 0;
    if (-1 < 1u)
        r |= 1;
    if (a < b)
        r |= 2;
    if ((long)a < (long)b)
        r |= 4;
    if (a + 0u > 100u)
        r |= 8;
    if ((unsigned)a == b)
        r |= 16;
    unsigned s = a + b;
    if (s < b)
        r |= 32;
    long d = a - (long)b;
    if (d < 0)
        r |= 64;
    if ((a ^ b) > 0x7fffffff)
        r |= 128;
    if (a / 2 > -1)
        r |= 256;
    return r;
}
