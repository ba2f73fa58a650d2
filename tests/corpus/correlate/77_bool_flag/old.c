/* entry: pick — _Bool flag parameter now also inverts the tie-break */
int pick(_Bool prefer_low, int a, int b)
{
    int x = a & 0xffff, y = b & 0xffff;
    if (prefer_low)
        return x < y ? x : y;
    return x > y ? x : y;
}
