/* Same computation, locals renamed. */
int triangle(int n)
{
    int total = 0;
    int idx;
    if (n > 1000)
        n = 1000;
    for (idx = 1; idx <= n; idx++)
        total += idx;
    return total;
}
