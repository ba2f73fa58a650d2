/* entry: bitrev */
/* Bit reversal of the low bits and a leading-zero count, early return for zero. */
unsigned bitrev(unsigned x, int width)
{
    unsigned r = 0;
    int w = (width & 31) + 1;
    for (int i = 0; i < w; i++) {
        r = (r << 1) | (x & 1u);
        x >>= 1;
    }
    int lz = 0;
    unsigned t = r;
    if (t == 0)
        return 32;
    while (!(t & 0x80000000u)) {
        t <<= 1;
        lz++;
    }
    return r ^ ((unsigned)lz << 24);
}
