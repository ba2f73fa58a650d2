/* Bytes remaining after offset off in a buffer of length len. */
long remaining(int len, int off)
{
    return (long)len - off;
}
