/* Same, but an offset past the end is now reported as -1. */
long remaining(int len, int off)
{
    if (off > len)
        return -1;
    return (long)len - off;
}
