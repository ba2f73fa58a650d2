/* entry: weigh — an inner loop added inside the matched outer loop */
int weigh(unsigned v, int n)
{
    int m = n & 15;
    int s = 0;
    for (int i = 0; i < m; i++) {
        int d = (int)((v >> (2 * i)) & 3u);
        s += d * (i + 1);
    }
    return s;
}
