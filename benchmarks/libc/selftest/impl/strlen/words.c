/* A word-at-a-time strlen (aligned 8-byte reads), written for the self-test of benchmarks/libc. */
#include <stddef.h>
#include <stdint.h>

size_t xstrlen(const char *s)
{
    const char *p = s;
    const uint64_t *w;
    for (; (uintptr_t)p % 8; p++)
        if (!*p)
            return (size_t)(p - s);
    for (w = (const uint64_t *)p; !((*w - 0x0101010101010101ull) & ~*w & 0x8080808080808080ull); w++)
        ;
    for (p = (const char *)w; *p; p++)
        ;
    return (size_t)(p - s);
}
