/* The length must fit the one-byte length field: larger frames are refused
   with -1 (the guard is written the overflow-safe way). */
long frame_len(int hdr, int body)
{
    long total;
    if (body > 255L - hdr)
        return -1;
    total = (long)hdr + body;
    return total;
}
