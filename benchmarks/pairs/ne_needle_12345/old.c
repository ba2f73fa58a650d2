/* A small checksum of a two-part key. */
long keyed(int x, int y)
{
    long r = 2L * x - y;
    return r;
}
