/* entry: fill — the old version's loop was unrolled by four, the new one is rolled up; same semantics */
int fill(int n, int y)
{
    int a[40];
    int x = y & 0xfff;
    int m = n & 31;
    int i = 0;
    for (; i < m; i++)
        a[i] = x + i;
    int s = 0;
    for (int k = 0; k < m; k++)
        s ^= a[k] * (k + 1);
    return s;
}
