/* entry: dot4 — fixed four-iteration loop unrolled (same semantics) */
int dot4(int a, int b)
{
    int s = (a & 0xff) * (b & 0xff);
    s += ((a >> 8) & 0xff) * ((b >> 8) & 0xff);
    s += ((a >> 16) & 0xff) * ((b >> 16) & 0xff);
    s += ((a >> 24) & 0xff) * ((b >> 24) & 0xff);
    return s;
}
