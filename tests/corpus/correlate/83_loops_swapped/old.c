/* entry: two_loops — two independent loops swapped (same semantics) */
int two_loops(unsigned v, int n)
{
    int m = n & 31;
    int ones = 0, alt = 0;
    for (int i = 0; i < m; i++)
        ones += (int)((v >> i) & 1u);
    for (int k = 0; k < 16; k++)
        alt += (k & 1) ? (int)((v >> (2 * k)) & 3u) : -(int)((v >> (2 * k)) & 3u);
    return ones * 1000 + alt;
}
