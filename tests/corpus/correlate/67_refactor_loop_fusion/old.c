/* entry: fused — two loops over the same range fused into one (same semantics) */
int fused(unsigned v, int n)
{
    int m = n & 31;
    int ones = 0, weight = 0;
    for (int i = 0; i < m; i++)
        ones += (int)((v >> i) & 1u);
    for (int i = 0; i < m; i++)
        weight += (int)((v >> i) & 1u) * i;
    return ones * 1000 + weight;
}
