/* entry: heap_mix */
/* malloc, calloc, realloc, strdup and free: contents kept across realloc, calloc zeroed. */
#include <stdlib.h>
#include <string.h>
long heap_mix(int n, unsigned k)
{
    unsigned m = (k % 13u) + 1u;
    int *a = malloc(m * sizeof(int));
    if (!a)
        return -1;
    for (unsigned i = 0; i < m; i++)
        a[i] = n ^ (int)(i * 7u);
    a = realloc(a, (m + 5u) * sizeof(int));
    if (!a)
        return -2;
    long s = 0;
    for (unsigned i = 0; i < m; i++)
        s += a[i];
    int *z = calloc(m, sizeof(int));
    if (!z) {
        free(a);
        return -3;
    }
    for (unsigned i = 0; i < m; i++)
        s += z[i];
    char buf[4] = {'x', (char)('a' + m), 0, 0};
    char *d = strdup(buf);
    s += d[1] + (long)strlen(d);
    free(d);
    free(z);
    free(a);
    return s;
}
