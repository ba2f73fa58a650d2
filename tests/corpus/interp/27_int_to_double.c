/* entry: mix_int_double */
/* Integer to floating conversions (long, int, unsigned long to double; long to float) and back. */
double mix_int_double(long a, int b, unsigned long c)
{
    double x = (double)a;
    double y = b;
    double z = (double)c;
    double q = y != 0 ? x / y : x;
    float f = (float)a;
    return q + z * 1e-10 + (double)f - x + (double)(a % 1000) / 7.0;
}
