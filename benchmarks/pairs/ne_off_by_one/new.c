/* The loop bound became inclusive: one more iteration whenever n >= 0. */
int count_upto(int n)
{
    int c = 0;
    int i;
    if (n > 500)
        n = 500;
    for (i = 0; i <= n; i++)
        c++;
    return c;
}
