/* strcmp returning the difference of the first differing bytes, written for the self-test of
   benchmarks/libc. */
int xstrcmp(const char *a, const char *b)
{
    const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
    while (*p && *p == *q)
        p++, q++;
    return *p - *q;
}
