/* A byte-at-a-time strlen, written for the self-test of benchmarks/libc. */
#include <stddef.h>

size_t xstrlen(const char *s)
{
    const char *p = s;
    while (*p)
        p++;
    return (size_t)(p - s);
}
