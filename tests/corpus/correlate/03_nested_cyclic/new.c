/* entry: cyclic — inner bound j < i becomes j <= i */
int cyclic(int n, int w)
{
    int m = n & 31;
    int k = w & 7;
    int i = 0, j, c = 0;
    while (i < m) {
        j = 0;
        while (j <= i) {
            c += ((i ^ j) & k) + 1;
            j++;
        }
        i++;
    }
    return c;
}
