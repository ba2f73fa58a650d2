/* Nested loops counting iterations; the inner loop stops before m.
   Both loop counts are capped at 64. */
int nested_count(int n, int m)
{
    int sum = 0;
    if (n > 64)
        n = 64;
    if (m > 64)
        m = 64;
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < m; ++j)
            sum++;
    }
    return sum;
}
