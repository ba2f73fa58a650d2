/* Same computation: h, lo and r renamed (names correspond only through the code). */
unsigned mix(unsigned key, int rounds)
{
    unsigned hash = 2166136261u;
    unsigned char low_byte = key & 255;
    if (rounds > 16)
        rounds = 16;
    for (int round = 0; round < rounds; round++) {
        hash = (hash ^ low_byte) * 16777619u;
        low_byte = (low_byte << 1) | (low_byte >> 7);
        if ((hash & 3) == 1)
            hash ^= key >> 3;
    }
    return hash ^ (hash >> 15);
}
