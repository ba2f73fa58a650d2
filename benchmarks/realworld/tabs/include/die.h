/* die.h -- report an error and exit.  */
#include <stdio.h>
#include <stdlib.h>
#define die(status, errnum, ...) \
  (fprintf (stderr, __VA_ARGS__), fputc ('\n', stderr), exit (status))
