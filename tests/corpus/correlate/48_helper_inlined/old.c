/* entry: norm2 — helper sq() inlined by hand (same semantics) */
static long sq(long v)
{
    return v * v;
}

long norm2(int x, int y)
{
    long a = x % 100000;
    long b = y % 100000;
    return sq(a) + sq(b);
}
