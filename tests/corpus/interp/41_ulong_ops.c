/* entry: ulong_mix */
/* 64-bit unsigned arithmetic: division, remainder, wrapping multiply, negation, shifts. */
unsigned long ulong_mix(unsigned long a, unsigned long b, unsigned sh)
{
    unsigned long d = b | 1ul;
    unsigned long q = a / d, r = a % d;
    unsigned long m = a * b;
    unsigned long x = (a << (sh & 63)) ^ (b >> ((sh >> 6) & 63));
    unsigned long neg = -a;
    return q + r * 3 + m + x + neg + (a > b) - (a < b);
}
