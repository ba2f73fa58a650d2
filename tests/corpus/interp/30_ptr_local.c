/* entry: ptr_local */
/* Pointers to locals: *p += 1, swap through a helper, pointer to pointer, re-pointing. */
static void swap(int *a, int *b)
{
    int t = *a;
    *a = *b;
    *b = t;
}

static void bump(int *p, int by)
{
    *p += by;
}

int ptr_local(int x, int y)
{
    x %= 10000;
    y %= 10000;
    int *p = &x;
    *p += 1;
    int *q = &y;
    if (x > y)
        swap(p, q);
    bump(&x, 3);
    int **pp = &p;
    **pp *= 2;
    p = q;
    *p -= x;
    return x * 1000 + y;
}
