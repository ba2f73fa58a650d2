#include <string.h>

char *__strchrnul(const char *, int);

char *strchr(const char *s, int c)
{
	char *r = __strchrnul(s, c);
	return *(unsigned char *)r == (unsigned char)c ? r : 0;
}

char *__strchr_l(const char *s, int c, void *loc)
{
	return strchr(s, c);
}

weak_alias(__strchr_l, strchr_l);
