/* entry: bool_logic */
/* _Bool parameters and result, conversions to _Bool from int and double, bool arithmetic. */
#include <stdbool.h>

_Bool bool_logic(_Bool a, _Bool b, int x)
{
    bool c = x;
    bool d = x & 2;
    _Bool e = a + b;
    int sum = a + b + c + d + e;
    bool f = (sum & 1) ^ (x < 0);
    if (!a && b)
        f = !f;
    bool g = 0.5;
    bool h = a * 2 == 2;
    return f != g ? e : (d && h);
}
