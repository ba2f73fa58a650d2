/* entry: nibble_pop — popcount loop over a nibble unrolled, with a wrong shift in the last term */
int nibble_pop(unsigned v)
{
    int c = 0;
    for (int i = 0; i < 4; i++)
        c += (int)((v >> i) & 1u);
    return c;
}
