/* entry: two_counters — independent statements in the loop body swapped (same semantics) */
int two_counters(int x, int n)
{
    int m = n & 63;
    int evens = 0, total = 0;
    for (int i = 0; i < m; i++) {
        total += (x >> (i & 15)) & 1;
        if ((i & 1) == 0)
            evens++;
    }
    return total * 100 + evens;
}
