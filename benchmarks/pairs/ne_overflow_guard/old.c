/* Length of a frame made of a header and a body. */
long frame_len(int hdr, int body)
{
    long total = (long)hdr + body;
    return total;
}
