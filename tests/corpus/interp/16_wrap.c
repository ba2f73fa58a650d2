/* entry: wrap_mix */
/* Unsigned wrap-around: FNV-1a over bytes, multiplicative hashing, rotation with masked counts. */
unsigned wrap_mix(unsigned a, unsigned b)
{
    unsigned h = 2166136261u;
    for (int i = 0; i < 4; i++) {
        h ^= (a >> (8 * i)) & 0xffu;
        h *= 16777619u;
    }
    h += b * 2654435761u;
    h -= a;
    unsigned rot = b & 31;
    h = (h << rot) | (h >> ((32 - rot) & 31));
    if (0u - 1u == 4294967295u)
        h ^= 1;
    return h;
}
