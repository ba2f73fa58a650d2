/* entry: fib_check */
/* Doubly recursive Fibonacci checked against an iterative version. */
static int fib(int n)
{
    if (n < 2)
        return n;
    return fib(n - 1) + fib(n - 2);
}

static int fib_iter(int n)
{
    int a = 0, b = 1;
    while (n-- > 0) {
        int t = a + b;
        a = b;
        b = t;
    }
    return a;
}

int fib_check(int n)
{
    int k = n & 15;
    int r = fib(k);
    if (r != fib_iter(k))
        return -1;
    return n < 0 ? -r : r;
}
