/* entry: clamp */
/* Nested branches and early returns: clamp x into [lo, hi] (bounds swapped when reversed). */
int clamp(int x, int lo, int hi)
{
    int swapped = 0;
    if (lo > hi) {
        int t = lo;
        lo = hi;
        hi = t;
        swapped = 1;
    }
    if (x < lo) {
        if (swapped)
            return lo;
        return lo;
    } else if (x > hi) {
        return hi;
    } else {
        if (x == lo) {
            if (lo == hi)
                return swapped ? hi : lo;
            return lo;
        }
    }
    return x;
}
