/* entry: sum_sq — accumulator widened from unsigned int to unsigned long (no more wrap-around) */
unsigned long sum_sq(unsigned x, int n)
{
    int m = n & 15;
    unsigned s = 0;
    for (int i = 0; i < m; i++) {
        unsigned t = x >> i;
        s += t * t;
    }
    return s;
}
