/* entry: bit_tricks */
/* Bit manipulation on int and unsigned: lowest set bit, power-of-two tests, masks, sign via shift. */
int bit_tricks(int x, unsigned y)
{
    unsigned ux = (unsigned)x;
    unsigned low = ux & (0u - ux);
    int pow2 = y != 0 && (y & (y - 1)) == 0;
    int sign = x >> 31;
    unsigned mask = (1u << (y & 31)) - 1u;
    int r = (int)(low % 1000u);
    r += pow2 * 7;
    r += sign * 3;
    r ^= (int)(ux & mask & 0xffff);
    r += (x & 0xff) | (int)((y >> 4) & 0xf0);
    return r;
}
