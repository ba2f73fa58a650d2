/* entry: pow5 — product x*x*x*x*x replaced by a loop (same semantics) */
long pow5(int x)
{
    long v = x % 1000;
    long r = 1;
    for (int i = 0; i < 5; i++)
        r *= v;
    return r;
}
