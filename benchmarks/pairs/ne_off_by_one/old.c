/* Number of iterations of a loop over i = 0 .. n-1 (n capped at 500). */
int count_upto(int n)
{
    int c = 0;
    int i;
    if (n > 500)
        n = 500;
    for (i = 0; i < n; i++)
        c++;
    return c;
}
