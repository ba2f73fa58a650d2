/* entry: parity_rec */
/* Mutual recursion between two static functions declared ahead with a prototype. */
static int is_odd(unsigned n);

static int is_even(unsigned n)
{
    return n == 0 ? 1 : is_odd(n - 1);
}

static int is_odd(unsigned n)
{
    return n == 0 ? 0 : is_even(n - 1);
}

int parity_rec(unsigned n, int bias)
{
    unsigned m = n % 200;
    int e = is_even(m);
    if (bias & 1)
        return is_odd(m + 1) == e ? (int)m : -(int)m;
    return e * 1000 + (int)m;
}
