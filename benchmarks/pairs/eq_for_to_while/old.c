/* Sum of the first n odd numbers (n capped at 200), with a for loop. */
long odd_sum(int n)
{
    long s = 0;
    int i;
    if (n > 200)
        n = 200;
    for (i = 0; i < n; i++)
        s += 2 * i + 1;
    return s;
}
