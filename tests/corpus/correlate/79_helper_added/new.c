/* entry: score — new version routes the value through a new static helper that saturates it */
static int saturate(int v, int lim)
{
    if (v > lim)
        return lim;
    if (v < -lim)
        return -lim;
    return v;
}

int score(int hits, int misses)
{
    int h = hits & 0x3ff;
    int m = misses & 0x3ff;
    int s = saturate(h * 4 - m * 2, 2000);
    return s;
}
