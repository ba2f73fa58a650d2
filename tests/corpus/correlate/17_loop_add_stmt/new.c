/* entry: checksum — extra mixing statement added to the loop body */
unsigned checksum(unsigned seed, int len)
{
    int n = len & 31;
    unsigned h = seed;
    for (int i = 0; i < n; i++) {
        h = h * 31u + (unsigned)i;
        h ^= h >> 13;
    }
    return h;
}
