/* entry: retry — backward-goto retry limit changed from 3 to 5 */
int retry(unsigned seed)
{
    unsigned s = seed;
    int tries = 0;
again:
    s = s * 1103515245u + 12345u;
    tries++;
    if (((s >> 16) & 7u) != 0u && tries < 5)
        goto again;
    return tries * 1000 + (int)((s >> 16) & 0x3ffu);
}
