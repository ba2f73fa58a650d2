/* The thesis's changed side: iteration (1, 1) counts twice.
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
            if (i == 1 && j == 1) {
                sum += 2;
            } else {
                sum++;
            }
        }
    }
    return sum;
}
