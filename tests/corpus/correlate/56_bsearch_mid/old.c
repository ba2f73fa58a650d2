/* entry: isqrt — binary search midpoint lo + (hi - lo + 1) / 2 rewritten as (lo + hi + 1) / 2 (same semantics) */
int isqrt(int v)
{
    int x = v & 0xfffff;
    int lo = 0, hi = 1024;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (mid * mid <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}
