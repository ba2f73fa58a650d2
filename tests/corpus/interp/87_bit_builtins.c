/* entry: bit_mix */
/* GCC's integer bit builtins (byte swaps, leading and trailing zeros, population count,
   parity, find-first-set, redundant sign bits) and glibc's <endian.h> conversions, which are
   inline functions calling them; clz/ctz only of non-zero values (zero is undefined). */
#include <endian.h>
#include <stdint.h>
unsigned long bit_mix(unsigned a, long b, unsigned short c)
{
    unsigned long h = 0;
    unsigned long wide = ((unsigned long)a << 32) ^ (unsigned long)b;
    h = h * 31 + __builtin_bswap16(c);
    h = h * 31 + __builtin_bswap32(a);
    h = h * 31 + __builtin_bswap64(wide);
    h = h * 31 + (unsigned long)__builtin_popcount(a) + (unsigned long)__builtin_popcountl(b);
    h = h * 31 + (unsigned long)__builtin_parity(a) + (unsigned long)__builtin_parityll(wide);
    h = h * 31 + (unsigned long)__builtin_ffs((int)a) + (unsigned long)__builtin_ffsl(b);
    h = h * 31 + (unsigned long)__builtin_clrsb((int)a) + (unsigned long)__builtin_clrsbl(b);
    if (a != 0)
        h = h * 31 + (unsigned long)__builtin_clz(a) + (unsigned long)__builtin_ctz(a);
    if (wide != 0)
        h = h * 31 + (unsigned long)__builtin_clzll(wide) + (unsigned long)__builtin_ctzl(wide);
    h = h * 31 + be64toh(wide) + htobe32(a) + le16toh(c) + htobe16(c);
    return h;
}
