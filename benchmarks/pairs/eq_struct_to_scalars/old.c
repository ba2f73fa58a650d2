/* A running min/max kept in a local struct. */
struct range {
    int lo;
    int hi;
};

int spread(int a, int b, int c)
{
    struct range r = {a, a};
    if (b < r.lo)
        r.lo = b;
    if (b > r.hi)
        r.hi = b;
    if (c < r.lo)
        r.lo = c;
    if (c > r.hi)
        r.hi = c;
    return r.hi - r.lo;
}
