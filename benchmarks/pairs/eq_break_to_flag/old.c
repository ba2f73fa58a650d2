/* First i below n (n capped at 500) with 3*i >= t, or n if there is none;
   the loop is left with break. */
int first_reach(int n, int t)
{
    int i;
    if (n > 500)
        n = 500;
    for (i = 0; i < n; i++) {
        if (3 * i >= t)
            break;
    }
    return i;
}
