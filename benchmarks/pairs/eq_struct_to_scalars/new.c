/* The same with two plain locals (a refactoring that drops the struct). */
int spread(int a, int b, int c)
{
    int lo = a, hi = a;
    if (b < lo)
        lo = b;
    if (b > hi)
        hi = b;
    if (c < lo)
        lo = c;
    if (c > hi)
        hi = c;
    return hi - lo;
}
