/* Differs only on the line 100*x + y == 12345 (e.g. x=123, y=45). */
long keyed(int x, int y)
{
    long r = 2L * x - y;
    if (100L * x + y == 12345)
        r = r - 1;
    return r;
}
