/* entry: digit_sum — base changed from 10 to 8 */
int digit_sum(unsigned v)
{
    int s = 0;
    while (v) {
        s += (int)(v % 10u);
        v /= 10u;
    }
    return s;
}
