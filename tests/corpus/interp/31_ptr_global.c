/* entry: ptr_global */
/* Pointers to globals and to elements of a global array, returned by a helper and written through. */
int total = 10;
static int table[4] = {1, 2, 3, 4};

static int *pick(int i)
{
    return i & 1 ? &total : &table[i & 3];
}

int ptr_global(int x)
{
    int *p = pick(x);
    *p += x & 0xff;
    int *q = &table[(x >> 8) & 3];
    *q *= 3;
    return total * 1000 + table[0] + table[1] * 10 + table[2] * 100 + table[3] * 1000 + *p;
}
