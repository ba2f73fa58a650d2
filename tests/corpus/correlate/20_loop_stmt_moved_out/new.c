/* entry: avg_bits — loop-invariant statement hoisted out of the loop (same semantics) */
int avg_bits(unsigned v, int scale)
{
    int total = 0;
    int k = 0;
    k = (scale & 7) + 1;
    for (int i = 0; i < 16; i++) {
        total += (int)((v >> (2 * i)) & 3u) * k;
    }
    return total + k;
}
