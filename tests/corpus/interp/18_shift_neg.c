/* entry: shr_neg */
/* Right shifts of negative values (arithmetic on GCC), logical shifts of unsigned, masked counts. */
int shr_neg(int x, int s, long y)
{
    int k = s & 31;
    int a = x >> k;
    long b = y >> (s & 63);
    unsigned c = (unsigned)x >> k;
    int d = -17 >> 2;
    long e = (long)x >> 40;
    return a ^ (int)b ^ (int)c ^ d ^ (int)e;
}
