/* entry: acc_until — early return added inside the loop */
int acc_until(int x, int lim)
{
    int n = lim & 63;
    int s = 0;
    for (int i = 0; i < n; i++) {
        s += i * 3;
    }
    return s;
}
