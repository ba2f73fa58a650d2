/* A small checksum of two values. */
long checksum(int x, int y)
{
    long r = 2L * x - y;
    return r;
}
