/* entry: total — accumulator changed from int to long; inputs are masked so it never overflows (same semantics) */
long total(int x, int n)
{
    int m = n & 63;
    long s = 0;
    for (int i = 0; i < m; i++)
        s += (x >> (i & 7)) & 0xffff;
    return s;
}
