/* coreutils md5sum.c, bsd_split_3 as of 6.11: empty lines are rejected before
   the backward scan (same numeric model as old.c). */
int bsd_split_3(unsigned short s_len, int close_paren_at, int equals_at)
{
    int i = s_len;
    i--;
    if (s_len == 0)
        return 0;
    i = s_len - 1;
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
