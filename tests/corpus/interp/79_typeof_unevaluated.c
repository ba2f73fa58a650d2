/* entry: typeof_unevaluated */
/* Operands of __typeof__ and sizeof are not evaluated: a global first named there, a call, an
   increment and a statement expression inside them have no effect, and the global read later
   is the global (not a local declared after the typeof). */
static int counter = 7;
static int table[5] = {3, 1, 4, 1, 5};

static int bump(void)
{
    counter++;
    return counter;
}

int typeof_unevaluated(int x, int y)
{
    __typeof__(counter) a = x % 1000;
    __typeof__(bump()) b = y % 1000;
    unsigned long n = sizeof(table) / sizeof(table[0]) + sizeof(bump()) + sizeof(x++);
    __typeof__(({ int t = counter; t + y; })) c = a - b;
    return a + counter * 3 + table[(x & 3)] + (int)n + c + x % 7;
}
