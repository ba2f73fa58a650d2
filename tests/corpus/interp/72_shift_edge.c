/* entry: shift_edge */
/* Shift corner cases: shifting promoted unsigned char/short, long shifts up to 62, shifting
   a negative value right, shift counts of different types, compound shifts on narrow types. */
long shift_edge(unsigned char c, short s, unsigned char n)
{
    int k = n % 24;
    int a = c << k;
    long b = (long)(unsigned short)s << (n % 48);
    int d = s >> (n % 16);
    unsigned e = (unsigned)s >> (n & 31);
    unsigned char f = c;
    f <<= 3;
    f >>= 1;
    short g = s;
    g >>= 2;
    long h = 1L << (n % 40);
    unsigned long i = 1ul << (n & 63);
    return a + b + d + (long)e + f + g + h + (long)(i >> 32) + (c << 23 >> 23);
}
