/* Sum of j = 5*i + c over the first n iterations (at most 100),
   recomputing j from i every time. */
long stride_sum(int n, int c)
{
    long total = 0;
    int i;
    if (n > 100)
        n = 100;
    for (i = 0; i < n; i++) {
        long j = 5L * i + c;
        total += j;
    }
    return total;
}
