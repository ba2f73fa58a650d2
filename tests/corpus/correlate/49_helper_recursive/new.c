/* entry: gcd_entry — recursive helper gcd() replaced by a changed version (returns 1 for gcd(0, 0)) */
static int gcd(int a, int b)
{
    if (b == 0)
        return a == 0 ? 1 : a;
    return gcd(b, a % b);
}

int gcd_entry(int x, int y)
{
    return gcd(x & 0xffff, y & 0xffff);
}
