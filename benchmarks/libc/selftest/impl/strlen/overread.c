/* A strlen that reads a whole 8-byte word past the end at any alignment (wrong), written for
   the self-test of benchmarks/libc. */
#include <stddef.h>

size_t xstrlen(const char *s)
{
    size_t n = 0;
    volatile char sink = s[8];
    (void)sink;
    while (s[n])
        n++;
    return n;
}
