/* strchr, written for the self-test of benchmarks/libc. */
#include <stddef.h>

char *xstrchr(const char *s, int c)
{
    for (;; s++) {
        if (*s == (char)c)
            return (char *)s;
        if (!*s)
            return NULL;
    }
}
