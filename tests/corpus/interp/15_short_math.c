/* entry: short_ops */
/* short arithmetic: products computed in int then narrowed, unsigned short differences. */
short short_ops(short a, short b)
{
    short p = a * b;
    unsigned short q = a - b;
    short r = p;
    if (q > 30000)
        r ^= 0x5555;
    r += (short)(a >> 3);
    int wide = a * b;
    if (wide != p)
        r = -r;
    return r;
}
