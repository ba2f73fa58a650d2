/* entry: digit_sum — base changed from 10 to 8 */
int digit_sum(unsigned v)
{
    int s = 0;
    while (v) {
        s += (int)(v % 8u);
        v /= 8u;
    }
    return s;
}
