/* entry: rotl — rotation amount mask changed from 63 to 31 */
unsigned long rotl(unsigned long v, int k)
{
    int s = k & 63;
    if (s == 0)
        return v;
    return (v << s) | (v >> (64 - s));
}
