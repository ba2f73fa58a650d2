/* entry: rev_bits — for loop rewritten as a while loop (same semantics) */
unsigned rev_bits(unsigned v, int width)
{
    int w = width & 31;
    unsigned r = 0;
    int i = 0;
    while (i < w) {
        r = (r << 1) | (v & 1u);
        v >>= 1;
        i++;
    }
    return r;
}
