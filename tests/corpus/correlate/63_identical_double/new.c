/* entry: lerp — identical versions over doubles */
double lerp(double a, double b, double t)
{
    if (t <= 0.0)
        return a;
    if (t >= 1.0)
        return b;
    return a + (b - a) * t;
}
