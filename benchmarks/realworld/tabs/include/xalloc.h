/* xalloc.h -- allocation that dies on failure (unused by the fixture).  */
#include <stdlib.h>
void *xmalloc (size_t n);
