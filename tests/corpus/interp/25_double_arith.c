/* entry: poly_eval */
/* double arithmetic and comparisons: a polynomial, guarded division, branches on double values. */
double poly_eval(double x, double y)
{
    double r = 3.0 * x * x - 2.5 * x + 1.0;
    if (y > r)
        r = (r + y) / 2.0;
    else if (y < -r)
        r -= y * 0.125;
    double z = x / (y == 0.0 ? 1.0 : y);
    return r + z - 1e-3;
}
