#include <string.h>
#include "toy.h"

size_t strlen(const char *s)
{
	const char *a = s;
#ifndef TOY_SMALL
	typedef uint64_t __attribute__((__may_alias__)) word;
	const word *w;
	for (; (uintptr_t)s % 8; s++)
		if (!*s)
			return s - a;
	for (w = (const void *)s; !TOY_HASZERO(*w); w++)
		;
	s = (const void *)w;
#endif
	for (; *s; s++)
		;
	return s - a;
}
