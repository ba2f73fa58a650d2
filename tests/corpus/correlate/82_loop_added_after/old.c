/* entry: normalize — a second loop added after the first */
int normalize(unsigned v)
{
    int shifts = 0;
    unsigned x = v & 0xffffu;
    if (x == 0u)
        return 0;
    while ((x & 0x8000u) == 0u) {
        x <<= 1;
        shifts++;
    }
    return (int)(x >> 8) * 100 + shifts;
}
