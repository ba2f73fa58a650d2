/* Distance between x and y; `last` is a debugging leftover nobody reads. */
long distance(int x, int y)
{
    long r = (long)x - y;
    long last;
    if (r < 0)
        r = -r;
    last = r;
    return r;
}
