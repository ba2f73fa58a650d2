/* entry: libm_mix */
/* The C library's mathematics as the interpreter runs it (interp::libm), double and float
   forms: each result feeds the sum, so one function computed differently changes the value. */
#include <math.h>

double libm_mix(double x, double y)
{
    double a = fabs(x) + sqrt(fabs(y));
    double b = sin(x) * cos(y) + tan(x / 8.0);
    double c = exp(fmod(x, 5.0)) + log(1.0 + fabs(y)) + log2(2.0 + a) + log10(3.0 + a);
    double d = pow(fabs(x) + 1.0, fmod(y, 3.0)) + atan2(x, y) + atan(b);
    double e = floor(x) + ceil(y) + round(x * 2.5) + trunc(y * 1.5) + rint(x) + nearbyint(y);
    double f = hypot(x, y) + copysign(a, y) + sinh(fmod(x, 4.0)) + cosh(fmod(y, 4.0)) + tanh(x);
    double g = asin(fmod(x, 1.0)) + acos(fmod(y, 1.0)) + exp2(fmod(x, 8.0));
    float h = sqrtf((float)fabs(x)) + sinf((float)y) + expf((float)fmod(x, 3.0))
              + logf(1.0f + (float)fabs(y)) + powf(1.5f, (float)fmod(y, 4.0)) + fabsf((float)x);
    return a + b + c + d + e + f + g + h;
}
