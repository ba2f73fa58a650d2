/* entry: gcd_lcm */
/* Recursive Euclid on unsigned long; lcm wraps around modulo 2^64. */
static unsigned long gcd(unsigned long a, unsigned long b)
{
    if (b == 0)
        return a;
    return gcd(b, a % b);
}

unsigned long gcd_lcm(unsigned long a, unsigned long b, int mode)
{
    unsigned long g = gcd(a, b);
    if (mode & 1) {
        if (g == 0)
            return 0;
        return a / g * b;
    }
    return g;
}
