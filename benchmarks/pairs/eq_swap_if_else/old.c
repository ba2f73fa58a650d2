/* Gap between x and y, counting one extra when x is not below y. */
long span(int x, int y)
{
    long r;
    if (x < y)
        r = (long)y - x;
    else
        r = (long)x - y + 1;
    return r;
}
