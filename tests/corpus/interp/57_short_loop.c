/* entry: short_accum */
/* short accumulators narrowed on every step, mixed with long and unsigned char. */
long short_accum(short a, unsigned char k, long base)
{
    short acc = a;
    int n = k & 31;
    for (int i = 0; i < n; i++) {
        acc += (short)(i * 1000);
        acc ^= (short)(acc >> 3);
    }
    long r = base % 1000000;
    r += acc;
    r -= (long)(unsigned short)acc;
    return r * 4 + (acc < 0);
}
