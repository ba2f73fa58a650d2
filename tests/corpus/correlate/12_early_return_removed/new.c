/* entry: lookup — early return for the fast path removed */
int lookup(int key, int dflt)
{
    int k = key & 255;
    int h = (k * 37) & 63;
    if (h < 8)
        return -h;
    return h + k;
}
