/* config.h -- what configure would have written for this fixture.  */
#define HAVE_STDINT_H 1
