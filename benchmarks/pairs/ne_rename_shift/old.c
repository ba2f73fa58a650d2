/* A hash step with bit operations; the new version only renames the locals. */
unsigned mix(unsigned key, int rounds)
{
    unsigned h = 2166136261u;
    unsigned char lo = key & 255;
    if (rounds > 16)
        rounds = 16;
    for (int r = 0; r < rounds; r++) {
        h = (h ^ lo) * 16777619u;
        lo = (lo << 1) | (lo >> 7);
        if ((h & 3) == 1)
            h ^= key >> 3;
    }
    return h ^ (h >> 15);
}
