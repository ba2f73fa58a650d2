/* The checksum is off by one for exactly one value of x. */
long checksum(int x, int y)
{
    long r = 2L * x - y;
    if (x == 777)
        r = r + 1;
    return r;
}
