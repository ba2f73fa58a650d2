/* Largest of a, a-2, a-4, ... (n terms, n capped at 100), starting from 0. */
int peak(int a, int n)
{
    int best = 0;
    int i;
    if (n > 100)
        n = 100;
    for (i = 0; i < n; i++) {
        long v = (long)a - 2 * i;
        if (v > best)
            best = (int)v;
    }
    return best;
}
