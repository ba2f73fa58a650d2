/* entry: unwritten_local_array_size */
/* An `int` local initialized with a constant that the function never writes (no assignment,
   increment or `&`) sizes an array as that constant, as older numerical code does with
   `int NTAB = 32; int iv[NTAB];`; in a loop body it is initialized anew each time. */
int unwritten_local_array_size(int x, int y)
{
    int n = 3;
    int total = 0;
    for (int r = 0; r < 2; r++) {
        int m = n + 2;
        int a[m];
        for (int i = 0; i < m; i++)
            a[i] = (x % 100) + i * r;
        total += a[m - 1] + (int)(sizeof a / sizeof a[0]);
    }
    long b[n];
    for (int j = 0; j < n; j++)
        b[j] = (long)(y % 50) * j;
    return total * 10 + (int)b[n - 1] + n;
}
