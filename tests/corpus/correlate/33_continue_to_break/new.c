/* entry: sum_zero_bits — continue changed to break */
int sum_zero_bits(unsigned v, int n)
{
    int m = n & 31;
    int s = 0;
    for (int i = 0; i < m; i++) {
        if ((v >> i) & 1u)
            break;
        s += i;
    }
    return s;
}
