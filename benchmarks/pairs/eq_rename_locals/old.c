/* 1 + 2 + ... + n, with n capped at 1000. */
int triangle(int n)
{
    int acc = 0;
    int k;
    if (n > 1000)
        n = 1000;
    for (k = 1; k <= n; k++)
        acc += k;
    return acc;
}
