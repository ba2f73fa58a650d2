/* entry: float_inits */
/* Arithmetic constant expressions with floating operands in static initializers (C11 6.6p7):
   globals and a static local, folded in the initializer's type. */
static double third = 1 / 3.0;
static float fthird = 1.0f / 3.0f;
static double scaled = (double)1 / 4 * 3;
static int rounded = (int)(2.5 * 2);
static int cmp = 1.5 > 1;

double float_inits(double x)
{
    static double step = 0.1 * 3;
    step += x > 0.0 ? 1.0 : -1.0;
    return third + fthird * 2 + scaled + rounded + cmp * 10 + step + x * 0.5;
}
