/* entry: running_max */
/* A static local with an initializer, a file-scope global, and limits.h constants. */
#include <limits.h>

static int calls_seen;

int running_max(int x, short y)
{
    static int best = INT_MIN;
    calls_seen++;
    if (x > best)
        best = x;
    if (y > best)
        best = y;
    if (best == INT_MAX)
        return -calls_seen;
    return best / 2 + calls_seen + (SHRT_MAX > y) + (CHAR_BIT == 8);
}
