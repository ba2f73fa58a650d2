/* entry: ptr_walk */
/* Pointer arithmetic over a local array: p + k, p[-1], *(p + 1), p - a, pointer comparisons,
   walking with p++ until an end pointer. */
int ptr_walk(int start, int len)
{
    int a[12];
    for (int i = 0; i < 12; i++)
        a[i] = (i * 7 + start % 13) % 11;
    int *p = a + 1 + (len & 7);
    int *end = a + 12;
    int s = p[-1] + *(p + 1) * 10;
    long dist = p - a;
    int *q = p;
    while (q < end && *q != 3)
        q++;
    int found = q == end ? -1 : (int)(q - a);
    int *m = a;
    for (int *r = a; r != end; r++)
        if (*r > *m)
            m = r;
    return s * 1000 + found * 10 + (int)dist + (int)(m - a) * 100000;
}
