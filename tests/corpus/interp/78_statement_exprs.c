/* entry: stmt_exprs */
/* GNU statement expressions: a typed max macro with locals, a loop with break inside one, one
   in a short-circuit operand, one in a condition, a void one, and nested ones. */
#define MAX(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a > _b ? _a : _b; })

static int calls;

static int bump(int v)
{
    calls++;
    return v + calls;
}

int stmt_exprs(int x, int y)
{
    int r = MAX(x % 1000, y % 1000);
    int s = ({ int t = 0; for (int i = 0; i < 5; i++) { if (i == (x & 7)) break; t += i; } t; });
    int u = (x > 0) && ({ int k = bump(y & 15); k > 4; });
    if (({ int w = x ^ y; w & 1; }))
        r += 3;
    ({ r += s; });
    int n = ({ int a = ({ int b = x & 3; b * 2; }); a + 1; });
    switch (({ int m = y & 3; m; })) {
    case 1:
        r += 10;
        break;
    default:
        r -= 1;
    }
    return r * 7 + s * 3 + u + n + calls;
}
