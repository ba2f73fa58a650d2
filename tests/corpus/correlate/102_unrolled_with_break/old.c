/* entry: scan — break and continue in a loop the new version unrolls by two, with a slip in the copy */
int scan(int n, int x)
{
    int m = n & 31;
    int s = 0, i = 0;
    while (i < m) {
        i++;
        if ((x >> (i & 7)) & 1)
            continue;
        if (s > 40)
            break;
        s += i;
    }
    return s * 100 + i;
}
