/* entry: newton_sqrt */
/* Newton iteration on doubles with a fixed iteration bound and a convergence break; double to long. */
double newton_sqrt(double v, int iters)
{
    if (!(v > 0.0))
        return 0.0;
    if (v > 1e300)
        v = 1e300;
    double x = v > 1.0 ? v : 1.0;
    int n = (iters & 63) + 1;
    for (int i = 0; i < n; i++) {
        double nx = 0.5 * (x + v / x);
        if (nx == x)
            break;
        x = nx;
    }
    if (x < 1e15) {
        long whole = (long)x;
        return x - (double)whole + (double)(whole % 1000);
    }
    return x;
}
