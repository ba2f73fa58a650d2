/* memchr-style scan of the n low bytes of a word for the byte c. This version compares the bytes
   as plain (signed) char, so no byte matches a c in [128, 255] although memchr's contract reads
   both as unsigned char. */
int scan_word(unsigned w, int c, int n)
{
    if (c < 0 || n > 4)
        return -2;
    for (int i = 0; i < n; i++) {
        char b = (char)(w >> (8 * i));
        if (b == c)
            return i;
    }
    return -1;
}
