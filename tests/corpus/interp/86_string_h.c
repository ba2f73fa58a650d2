/* entry: string_mix */
/* <string.h>: comparisons (their sign and size as glibc returns them), searches, copies and
   sprintf/snprintf, on strings built from the arguments (bytes >= 0x80 and case included). */
#include <stdio.h>
#include <string.h>
#include <strings.h>
static const char letters[8] = {'a', 'B', 'b', 'A', 'c', (char)0xe9, '/', 'a'};
static void build(char *s, unsigned bits, unsigned len)
{
    for (unsigned i = 0; i < len; i++)
        s[i] = letters[(bits >> (3 * i)) & 7u];
    s[len] = 0;
}
static long at(const char *base, const char *p)
{
    return p ? (long)(p - base) : -1L;
}
long string_mix(int a, int b, unsigned n)
{
    char s[16], t[16], u[40];
    unsigned ls = (unsigned)a % 6u, lt = (unsigned)b % 6u, k = n % 8u;
    build(s, (unsigned)a >> 3, ls);
    build(t, (unsigned)b >> 3, lt);
    unsigned long h = 0;
    h = h * 31 + strcmp(s, t);
    h = h * 31 + strncmp(s, t, k);
    h = h * 31 + strcasecmp(s, t);
    h = h * 31 + strncasecmp(s, t, k);
    h = h * 31 + memcmp(s, t, (ls < lt ? ls : lt) + 1);
    h = h * 31 + (long)strlen(s) + (long)strnlen(t, k);
    h = h * 31 + at(s, strchr(s, t[0])) + at(s, strrchr(s, 'a')) + at(s, strchr(s, 0));
    h = h * 31 + at(s, memchr(s, 'b', ls)) + at(s, strpbrk(s, t)) + at(s, strstr(s, t));
    h = h * 31 + (long)strspn(s, t) * 7 + (long)strcspn(s, t);
    strcpy(u, s);
    strcat(u, t);
    strncat(u, s, k);
    h = h * 31 + (long)strlen(u) + u[ls];
    char *e = stpcpy(u, t);
    h = h * 31 + (e - u);
    strncpy(u, s, k);
    h = h * 31 + u[0] + u[k > 0 ? k - 1 : 0];
    int w = snprintf(u, k, "%s-%d", s, a % 100);
    h = h * 31 + w + (k > 0 ? u[0] + (long)strlen(u) : 0);
    w = sprintf(u, "%x:%s", (unsigned)b & 0xffu, t);
    h = h * 31 + w + u[w - 1];
    return (long)(h & 0xffffffffffffUL);
}
