/* entry: popcount_mix */
/* Bit counting three ways: Kernighan loop in a static helper, for loop over 64 bits, do-while parity. */
static int popcount(unsigned x)
{
    int n = 0;
    while (x) {
        x &= x - 1;
        n++;
    }
    return n;
}

int popcount_mix(unsigned x, unsigned long y)
{
    int a = popcount(x);
    int b = 0;
    for (int i = 0; i < 64; i++)
        if ((y >> i) & 1ul)
            b++;
    int parity = 0;
    unsigned t = x;
    do {
        parity ^= t & 1u;
        t >>= 1;
    } while (t != 0);
    return a * 100 + b + (parity << 12);
}
