/* The first i below n (n capped at 500) with i >= k, or -1. */
int first_at_least(int n, int k)
{
    int pos = -1;
    int i;
    if (n > 500)
        n = 500;
    for (i = 0; i < n; i++) {
        if (i >= k) {
            pos = i;
            break;
        }
    }
    return pos;
}
