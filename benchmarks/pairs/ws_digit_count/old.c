/* Number of decimal digits of n (the sign is ignored). */
int digit_count(int n)
{
    long v = n;
    int d = 1;
    if (v < 0)
        v = -v;
    while (v >= 10) {
        v /= 10;
        d++;
    }
    return d;
}
