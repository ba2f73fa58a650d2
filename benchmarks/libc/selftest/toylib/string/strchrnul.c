#include <string.h>

char *__strchrnul(const char *s, int c)
{
	while (*s && *(const unsigned char *)s != (unsigned char)c)
		s++;
	return (char *)s;
}

weak_alias(__strchrnul, strchrnul);
