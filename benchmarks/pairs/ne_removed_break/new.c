/* The break is gone, so the last matching i is returned instead. */
int first_at_least(int n, int k)
{
    int pos = -1;
    int i;
    if (n > 500)
        n = 500;
    for (i = 0; i < n; i++) {
        if (i >= k) {
            pos = i;
        }
    }
    return pos;
}
