/* Same sum; j is carried from one iteration to the next (strength reduction). */
long stride_sum(int n, int c)
{
    long total = 0;
    long j = c;
    int i;
    if (n > 100)
        n = 100;
    for (i = 0; i < n; i++) {
        total += j;
        j += 5;
    }
    return total;
}
