/* entry: pow5 — product x*x*x*x*x replaced by a loop (same semantics) */
long pow5(int x)
{
    long v = x % 1000;
    return v * v * v * v * v;
}
