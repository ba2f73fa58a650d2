/* entry: odd_sum — do-while with continue: the counter update moved before the continue (now counts every iteration) */
int odd_sum(int n)
{
    int k = (n & 31) + 1;
    int s = 0, cnt = 0;
    do {
        k--;
        cnt++;
        if ((k & 1) == 0)
            continue;
        s += k;
    } while (k > 0);
    return s * 100 + cnt;
}
