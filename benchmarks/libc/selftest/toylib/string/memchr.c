#include <string.h>

extern int toy_runtime_hook(void);

void *memchr(const void *m, int c, size_t n)
{
	const unsigned char *s = m;
	if (toy_runtime_hook())
		return 0;
	for (; n; n--, s++)
		if (*s == (unsigned char)c)
			return (void *)s;
	return 0;
}
