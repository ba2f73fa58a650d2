/* entry: strings_bools */
/* Reading string literals through pointers and indexes, _Bool increment/decrement (b-- toggles),
   _Bool compound assignment, unary plus promotion. */
static int count_char(const char *s, char c)
{
    int n = 0;
    for (; *s; s++)
        if (*s == c)
            n++;
    return n;
}

int strings_bools(int x, _Bool b)
{
    const char *msg = "hello, world";
    int i = x & 15;
    int r = i < 12 ? msg[i] : 0;
    r += count_char(msg, 'l') * 1000 + count_char("banana", "nab"[(x & 3) % 3]) * 100;
    _Bool t = b;
    t++;
    _Bool u = b;
    u--;
    _Bool v = b;
    v += 2;
    _Bool w = b;
    w *= 3;
    r += t * 10000 + u * 20000 + v * 40000 + w * 80000;
    unsigned char uc = (unsigned char)x;
    r += sizeof(+uc) + sizeof(uc) * 2;
    return r;
}
