/* Number of set bits. */
int popcount(unsigned x)
{
    int c = 0;
    while (x != 0) {
        c += x & 1u;
        x >>= 1;
    }
    return c;
}
