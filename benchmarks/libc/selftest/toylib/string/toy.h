/* Private macros of the toy library (like musl's ONES/HIGHS/HASZERO). */
#include <stdint.h>
#define TOY_ONES 0x0101010101010101UL
#define TOY_HIGHS 0x8080808080808080UL
#define TOY_HASZERO(x) (((x) - TOY_ONES) & ~(x) & TOY_HIGHS)
