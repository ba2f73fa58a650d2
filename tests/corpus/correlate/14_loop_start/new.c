/* entry: weighted — loop start changed from 1 to 0 */
int weighted(int x, int n)
{
    int m = n & 31;
    int w = x & 7;
    int s = 0;
    for (int i = 0; i < m; i++)
        s += i * w + 1;
    return s;
}
