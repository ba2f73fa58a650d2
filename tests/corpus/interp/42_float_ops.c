/* entry: float_ops */
/* float arithmetic in single precision, a double product rounded back to float, float literals. */
float float_ops(float a, float b)
{
    float s = a + b, d = a - b, p = a * b;
    float q = b != 0.0f ? a / b : 0.0f;
    float r = s * 0.5f + d * 0.25f;
    if (p > 100.0f)
        r -= q;
    else if (p < -100.0f)
        r += q;
    else
        r = r * r;
    double wide = (double)a * b;
    float back = (float)wide;
    return r + back - p + 1.0e-3f;
}
