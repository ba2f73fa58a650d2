/* entry: mix32 */
/* typedef'd and <stdint.h> types, long long, short int, signed keyword, a typedef'd struct. */
#include <stdint.h>

typedef unsigned int u32;
typedef struct {
    u32 lo;
    int32_t hi;
} pair_t;

static u32 rotl(u32 v, int r)
{
    r &= 31;
    return r ? (v << r) | (v >> (32 - r)) : v;
}

long long mix32(uint32_t a, int16_t b, signed long long c)
{
    pair_t p;
    p.lo = rotl(a, b);
    p.hi = (int32_t)(c >> 32);
    short int t = (short int)b;
    uint8_t lo8 = (uint8_t)p.lo;
    int64_t r = (int64_t)p.lo + p.hi + t + lo8;
    unsigned long long u = (unsigned long long)c ^ p.lo;
    return r + (long long)(u >> 2);
}
