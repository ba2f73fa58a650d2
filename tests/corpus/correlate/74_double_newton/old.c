/* entry: newton — one more Newton iteration */
double newton(double x, int it)
{
    double v = x < 0.0 ? -x : x;
    double r = v > 1.0 ? v : 1.0;
    int n = it & 7;
    for (int i = 0; i < n; i++)
        r = 0.5 * (r + v / r);
    return r;
}
