/* entry: float_to_int */
/* float <-> int conversions (truncation toward zero), with a range check before converting. */
int float_to_int(float f, int k)
{
    float g = f * 0.5f + (float)(k & 1023);
    if (!(g > -2.0e9f && g < 2.0e9f))
        return k & 1 ? -1 : -2;
    int i = (int)g;
    float back = (float)i;
    int r = i / 4;
    if (back == g)
        r += 1;
    r += (int)((g - back) * 100.0f);
    return r + (int)(unsigned char)k;
}
