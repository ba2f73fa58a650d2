/* Same distance; the unread leftover now stores something else. */
long distance(int x, int y)
{
    long r = (long)x - y;
    long last;
    if (r < 0)
        r = -r;
    last = r + 2L * y;
    return r;
}
