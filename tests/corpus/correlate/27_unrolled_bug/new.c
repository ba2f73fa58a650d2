/* entry: nibble_pop — popcount loop over a nibble unrolled, with a wrong shift in the last term */
int nibble_pop(unsigned v)
{
    int c = (int)(v & 1u);
    c += (int)((v >> 1) & 1u);
    c += (int)((v >> 2) & 1u);
    c += (int)((v >> 4) & 1u);
    return c;
}
