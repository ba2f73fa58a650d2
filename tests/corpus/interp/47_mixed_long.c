/* entry: mixed_long */
/* Usual arithmetic conversions between int, unsigned and long: which operand wins, and when. */
long mixed_long(int a, unsigned b, long c)
{
    long r1 = a + b;
    long r2 = b + (c >> 2);
    unsigned long r3 = a + (c >> 2);
    int cmp = (a < b) + 2 * (c < b) + 4 * (a < c) + 8 * (a + b < c);
    long r4 = (long)a * (long)(int)b;
    return r1 ^ r2 ^ (long)r3 ^ r4 ^ cmp;
}
