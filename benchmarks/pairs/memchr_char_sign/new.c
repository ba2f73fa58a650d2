/* The fix: bytes are read as unsigned char, as memchr specifies; it only changes the answer for
   c in [128, 255]. */
int scan_word(unsigned w, int c, int n)
{
    if (c < 0 || n > 4)
        return -2;
    for (int i = 0; i < n; i++) {
        unsigned char b = (unsigned char)(w >> (8 * i));
        if (b == c)
            return i;
    }
    return -1;
}
