/* entry: first_repeat */
/* A _Bool array as a seen-set, a loop condition with && on a _Bool flag. */
int first_repeat(unsigned long x, int start)
{
    _Bool seen[16] = {0};
    _Bool found = 0;
    int i;
    int s = start & 7;
    for (i = s; i < 16 && !found; i++) {
        unsigned nib = (x >> (4 * i)) & 15;
        if (seen[nib])
            found = 1;
        else
            seen[nib] = 1;
    }
    return found ? i : -1;
}
