/* entry: gauss — summation loop replaced by the closed formula (same semantics) */
int gauss(int n)
{
    int m = n & 4095;
    int s = 0;
    for (int i = 1; i <= m; i++)
        s += i;
    return s;
}
