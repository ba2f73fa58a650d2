/* system.h -- project-wide definitions of the fixture.  */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
typedef ptrdiff_t idx_t;
#define _(msgid) (msgid)
#ifdef lint
# define IF_LINT(Code) Code
#else
# define IF_LINT(Code) /* empty */
#endif
#define TAB_WIDTH(size, column) ((size) - (column) % (size))
#define TAB_STOP_LIMIT 1024
