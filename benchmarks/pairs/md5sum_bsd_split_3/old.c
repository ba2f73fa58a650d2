/* coreutils md5sum.c, bsd_split_3 as of 6.10, reduced to its index arithmetic.
   The line is "(FILENAME) = DIGEST"; instead of reading characters, the
   positions of the last ')' and of the '=' are given as numbers.
   Returns the offset where the digest starts, or 0 when the line is rejected.
   For s_len == 0 the backward scan starts at -1 and walks further down
   (the bug the patch removes); it only stops if close_paren_at is below -1. */
int bsd_split_3(unsigned short s_len, int close_paren_at, int equals_at)
{
    int i = s_len;
    i--;
    /* search backwards for the closing parenthesis */
    while (i && i != close_paren_at)
        i--;
    if (i != close_paren_at)
        return 0;
    i++;                        /* the ')' is overwritten by a terminator */
    if (i != equals_at)
        return 0;
    i++;
    return i;
}
