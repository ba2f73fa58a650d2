/* Clamp x to [lo, hi]: raise to lo, then lower to hi. */
int clamp(int x, int lo, int hi)
{
    if (x < lo)
        x = lo;
    if (x > hi)
        x = hi;
    return x;
}
