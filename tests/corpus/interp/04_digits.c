/* entry: count_digits */
/* Digit counting in a variable base with a do-while; negative long handled through unsigned. */
int count_digits(long n, int base_sel)
{
    unsigned long u = n < 0 ? 0UL - (unsigned long)n : (unsigned long)n;
    unsigned base = 2 + (unsigned)(base_sel & 15);
    int d = 0;
    do {
        u /= base;
        d++;
    } while (u != 0);
    return n < 0 ? -d : d;
}
