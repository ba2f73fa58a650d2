/* entry: low_bits — result mask widened from 0xff to 0x1ff */
unsigned low_bits(unsigned v, int shift)
{
    int s = shift & 15;
    unsigned r = (v >> s) & 0xffu;
    return r;
}
