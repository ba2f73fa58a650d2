/* entry: lookup — early return for the fast path removed */
int lookup(int key, int dflt)
{
    int k = key & 255;
    if (k == 0)
        return dflt % 1000;
    int h = (k * 37) & 63;
    if (h < 8)
        return -h;
    return h + k;
}
