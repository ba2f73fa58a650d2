/* entry: abs_div */
/* Signed division and remainder truncate toward zero; abs() from stdlib; a zero divisor is avoided. */
#include <stdlib.h>

int abs_div(int a, int b)
{
    if (b == 0)
        return 0;
    int q = a / b, r = a % b;
    int aq = abs(q % 100000);
    if (r < 0 && b > 0)
        r += b;
    return aq * 3 + r;
}
