/* The nested-loop pair of the inequivalence thesis (cyclic_23, source side):
   counts the (i, j) iterations.
   Both loop counts are capped at 64 so every input terminates quickly. */
int cyclic_23(int n, int m)
{
    int sum = 0;
    if (n > 64)
        n = 64;
    if (m > 64)
        m = 64;
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < m; ++j) {
            sum++;
        }
    }
    return sum;
}
