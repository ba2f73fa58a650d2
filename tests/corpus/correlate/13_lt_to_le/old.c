/* entry: sum_to — loop bound i < m changed to i <= m */
int sum_to(int n)
{
    int m = n & 1023;
    int s = 0;
    for (int i = 0; i < m; i++)
        s += i;
    return s;
}
