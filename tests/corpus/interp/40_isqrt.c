/* entry: isqrt */
/* Integer square root by binary search on unsigned long, avoiding overflow with n / mid. */
unsigned long isqrt(unsigned long n)
{
    if (n < 2)
        return n;
    unsigned long lo = 1, hi = 4294967295ul;
    if (hi > n)
        hi = n;
    while (lo < hi) {
        unsigned long mid = lo + (hi - lo + 1) / 2;
        if (mid <= n / mid)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}
