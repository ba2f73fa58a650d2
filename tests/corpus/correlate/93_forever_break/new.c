/* entry: ilog — while loop rewritten as for (;;) with a break (same semantics) */
int ilog(unsigned long v, int base)
{
    unsigned long b = (unsigned long)(base & 15) + 2;
    int k = 0;
    for (;;) {
        if (v < b)
            break;
        v /= b;
        k++;
    }
    return k;
}
