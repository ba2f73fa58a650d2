/* entry: char_arith */
/* char arithmetic and integer promotions: sums in int, narrowing back to char/unsigned char. */
int char_arith(char a, char b, unsigned char c)
{
    char s = a + b;
    unsigned char u = c + 200;
    int promoted = a + b;
    int r = 0;
    if (s != promoted)
        r += 1000;
    if (u < c)
        r += 2000;
    r += (unsigned char)a * 3 - (signed char)c;
    r += ~c;
    r += (char)(c << 1);
    if (sizeof(a + b) == sizeof(int))
        r += 10000;
    return r + s + u;
}
