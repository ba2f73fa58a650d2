/* entry: float_mix */
/* float parameters mixed with int and double: promotions, comparisons, float -> unsigned char. */
double float_mix(float f, int i, double d)
{
    float g = f * 2.0f - (float)(i % 100);
    double h = g + d;
    int r = 0;
    if (g < f)
        r |= 1;
    if (h > 0.0)
        r |= 2;
    if (g == 0.0f)
        r |= 4;
    if (g >= 0.0f && g < 255.0f)
        r += (unsigned char)g;
    return h / 4.0 + r;
}
