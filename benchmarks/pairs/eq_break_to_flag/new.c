/* Same search, stopped by a flag instead of break. */
int first_reach(int n, int t)
{
    int i = 0;
    int found = 0;
    if (n > 500)
        n = 500;
    while (i < n && !found) {
        if (3 * i >= t)
            found = 1;
        else
            i++;
    }
    return i;
}
