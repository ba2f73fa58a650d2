/* entry: se_jumps */
/* Jumps out of GNU statement expressions: `break` and `continue` of the enclosing loop from one
   that is an expression statement, an assignment's right side, an `if` condition or the right
   operand of `&&`; `break` of a `switch`; `return` from one in a declaration's initializer
   (glibc's wcschr is written this way); the rest of the enclosing expression is skipped. */
static int calls;

static int bump(int v)
{
    calls++;
    return v + calls;
}

static int scan(int x, int y)
{
    int n = 0;
    int i = 0;
    while (1) {
        (void)({ if (!({ n += i; i < (x & 15) && ((i ^ y) & 7) != 0; })) break; });
        i++;
    }
    return n * 16 + i;
}

static int skip_odd(int x)
{
    int s = 0;
    for (int i = 0; i < 12; i++) {
        s += ({ if ((i ^ x) & 1) continue; i; });
        s ^= x & 3;
    }
    return s;
}

static int cond_break(int x, int y)
{
    int k = 0;
    do {
        if (({ int t = k * 3 + (y & 7); if (t > (x & 31)) break; t & 1; }))
            k += 2;
        else
            k += 1;
    } while (k < 40);
    return k;
}

static int and_continue(int x)
{
    int c = 0;
    for (int i = 0; i < 9; i++) {
        int u = (i & 1) && ({ if (i == (x & 7)) continue; bump(i) > 3; });
        c = c * 3 + u;
    }
    return c;
}

static int sw(int x)
{
    int r = 0;
    switch (x & 3) {
    case 0:
        r = ({ if (x > 100) break; 5; }) + 1;
        r *= 2;
        break;
    case 1:
        r = 7;
        break;
    default:
        r = ({ int q = x & 12; q ? q : ({ break; 0; }); });
    }
    return r;
}

static int early(int x)
{
    int v = ({ if (x < 0) return -1; x % 50; });
    int w = bump(v) + ({ if (v == 3) return 99; 2; });
    return v + w;
}

int se_jumps(int x, int y)
{
    return scan(x, y) + skip_odd(x) * 3 + cond_break(x, y) * 5 + and_continue(x) * 7 + sw(x) * 11
        + early(y) * 13 + calls;
}
