/* Sum over i < n (n capped at 100) of 3a + b + i. */
long affine_sum(int a, int b, int n)
{
    long s = 0;
    int i;
    if (n > 100)
        n = 100;
    for (i = 0; i < n; i++)
        s += 3L * a + b + i;
    return s;
}
