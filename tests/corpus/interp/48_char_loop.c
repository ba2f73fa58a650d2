/* entry: char_walk */
/* Incrementing a signed char past 127 (wraps on GCC), unsigned short wrap-around. */
int char_walk(signed char c, unsigned short n)
{
    int count = 0;
    signed char x = c;
    int steps = n & 511;
    for (int i = 0; i < steps; i++) {
        x++;
        if (x == 0)
            count += 100;
        if (x < 0)
            count++;
    }
    unsigned short m = n;
    m += 65000;
    return count * 10 + x + (m & 0xff);
}
