/* entry: clamp3 — identical versions */
int clamp3(int x, int lo, int hi)
{
    int r = x;
    if (lo > hi) {
        int t = lo;
        lo = hi;
        hi = t;
    }
    if (r < lo)
        r = lo;
    else if (r > hi)
        r = hi;
    return r;
}
