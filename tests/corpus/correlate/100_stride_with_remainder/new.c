/* entry: total — the loop steps by two with a remainder after it; same semantics */
int total(int n, int x)
{
    int m = n & 31;
    int s = 0, i;
    for (i = 0; i + 1 < m; i += 2) {
        s += x & 0xff;
        s += x & 0xff;
    }
    if (i < m)
        s += x & 0xff;
    return s;
}
