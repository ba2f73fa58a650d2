/* entry: compound_ops */
/* Every compound assignment operator, on unsigned long and on int. */
unsigned long compound_ops(unsigned long x, int k)
{
    unsigned long r = x;
    int s = k & 63;
    r += 0x9e3779b97f4a7c15ul;
    r ^= r >> 29;
    r *= 0xbf58476d1ce4e5b9ul;
    r <<= s & 7;
    r >>= 3;
    r |= (unsigned long)(k & 0xff) << 40;
    r &= ~0xf0ul;
    r -= x;
    unsigned long m = r;
    m %= (unsigned long)s + 1000;
    r ^= m;
    r /= 3;
    int q = k;
    q %= 7;
    q *= 3;
    q /= 2;
    q -= 100;
    unsigned uq = (unsigned)q;
    uq <<= 2;
    uq >>= 1;
    r += q + uq;
    return r;
}
