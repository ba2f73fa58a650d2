/* entry: uchar_ops */
/* unsigned char arithmetic: promotion to int, truncation on assignment, carry detection. */
unsigned char uchar_ops(unsigned char a, unsigned char b)
{
    unsigned char s = a + b;
    unsigned char d = a - b;
    unsigned char p = a * b;
    unsigned char r = s ^ d ^ p;
    r <<= 1;
    r += (unsigned char)~a;
    if ((unsigned char)(a + b) < a)
        r |= 0x80;
    if (a + b > 255)
        r ^= 0x40;
    return r;
}
