/* entry: fused — two loops over the same range fused into one (same semantics) */
int fused(unsigned v, int n)
{
    int m = n & 31;
    int ones = 0, weight = 0;
    for (int i = 0; i < m; i++) {
        int b = (int)((v >> i) & 1u);
        ones += b;
        weight += b * i;
    }
    return ones * 1000 + weight;
}
