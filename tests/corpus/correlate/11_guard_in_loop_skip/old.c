/* entry: sum_small — guard added inside the loop that skips large terms */
int sum_small(unsigned v, int n)
{
    int m = n & 31;
    int s = 0;
    for (int i = 0; i < m; i++) {
        int d = (int)((v >> (i & 28)) & 15u);
        s += d;
    }
    return s;
}
