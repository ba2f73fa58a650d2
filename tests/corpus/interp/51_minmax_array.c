/* entry: spread */
/* A local array of doubles initialised from parameters; min, max and mean in a loop. */
double spread(double a, double b, double c)
{
    double v[3] = {a, b, c};
    double lo = v[0], hi = v[0], sum = 0.0;
    for (int i = 0; i < 3; i++) {
        if (v[i] < lo)
            lo = v[i];
        if (v[i] > hi)
            hi = v[i];
        sum += v[i];
    }
    double mean = sum / 3.0;
    return (hi - lo) + mean * 0.5;
}
