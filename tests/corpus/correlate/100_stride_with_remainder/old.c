/* entry: total — the loop steps by two with a remainder after it; same semantics */
int total(int n, int x)
{
    int m = n & 31;
    int s = 0, i;
    for (i = 0; i < m; i++)
        s += x & 0xff;
    return s;
}
