/* entry: halvings */
/* Assignments inside conditions: while ((x = x / 2) > 3), if ((y = ...) != 0), for (; (m >>= 3); ). */
int halvings(int x, unsigned mask)
{
    int n = 0, y;
    while ((x = x / 2) > 3)
        n++;
    if ((y = (int)(mask & 7)) != 0)
        n += y;
    unsigned m = mask;
    for (; (m >>= 3) != 0;)
        n++;
    int c;
    if ((c = x % 3) < 0)
        c = -c;
    return n * 10 + c;
}
