/* entry: saturate — upper clamp lowered to 0.75 and its test written with a negation (NaN now saturates too) */
double saturate(double x)
{
    if (!(x <= 0.75))
        return 0.75;
    if (x < -1.0)
        return -1.0;
    return x;
}
