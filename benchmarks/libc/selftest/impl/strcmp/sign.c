/* strcmp returning -1, 0 or 1, written for the self-test of benchmarks/libc. */
int xstrcmp(const char *a, const char *b)
{
    const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
    while (*p && *p == *q)
        p++, q++;
    return (*p > *q) - (*p < *q);
}
