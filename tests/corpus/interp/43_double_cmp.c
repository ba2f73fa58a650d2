/* entry: double_cmp */
/* double comparisons including NaN (from inf - inf), signed zero equality, max via ?:. */
int double_cmp(double a, double b)
{
    int r = 0;
    if (a < b)
        r |= 1;
    if (a <= b)
        r |= 2;
    if (a == b)
        r |= 4;
    double big = a * 1e10;
    double nan = big - big;
    if (nan != nan)
        r |= 8;
    if (a > b || nan == nan)
        r |= 16;
    if (a == 0.0 && b == -0.0)
        r |= 32;
    double m = a > b ? a : b;
    if (m >= 1e300)
        r |= 64;
    double c = a * 0.5;
    if (c + c == a)
        r |= 128;
    if ((float)a == a)
        r |= 256;
    return r;
}
