/* strchr that never finds the terminator (the thesis's bug class), written for the self-test of
   benchmarks/libc. */
#include <stddef.h>

char *xstrchr(const char *s, int c)
{
    for (; *s; s++)
        if (*s == (char)c)
            return (char *)s;
    return NULL;
}
