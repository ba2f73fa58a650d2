/* entry: casts_widths */
/* Casts between integer widths: truncation, sign and zero extension, conversion to _Bool. */
long casts_widths(long x, int sel)
{
    int i = (int)x;
    short s = (short)x;
    signed char c = (signed char)x;
    unsigned char uc = (unsigned char)x;
    unsigned u = (unsigned)x;
    unsigned long ul = (unsigned long)(int)x;
    switch (sel & 7) {
    case 0:
        return i;
    case 1:
        return s;
    case 2:
        return c;
    case 3:
        return uc;
    case 4:
        return u;
    case 5:
        return (long)ul;
    case 6:
        return (long)(unsigned short)s + c;
    default:
        return (long)(_Bool)x + (int)(unsigned)(x >> 32);
    }
}
