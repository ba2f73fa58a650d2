/* entry: const_local_array_size */
/* A `const` local with a constant initializer sizes an array as that constant (GCC makes it a
   fixed-size array: numerical code writes `const int NTAB = 32; int iv[NTAB];`), also through
   another such local; its value is still read like any variable's. */
int const_local_array_size(int x, int y)
{
    const int N = 4, M = N * 2 + 1;
    const unsigned char K = 3;
    int a[N];
    long b[M - K];
    for (int i = 0; i < N; i++)
        a[i] = (x % 100) * i;
    for (int j = 0; j < M - K; j++)
        b[j] = (long)(y % 50) - j;
    return (int)(sizeof a / sizeof a[0]) * 1000 + (int)(sizeof b / sizeof b[0]) * 100 + a[N - 1] + (int)b[M - K - 1] + K;
}
