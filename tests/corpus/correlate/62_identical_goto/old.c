/* entry: parse_num — identical versions with forward and backward gotos */
int parse_num(unsigned digits, int base)
{
    int b = (base & 7) + 2;
    int v = 0, i = 0;
    if (digits == 0u)
        goto empty;
next:
    if (i >= 8)
        goto done;
    {
        int d = (int)((digits >> (4 * i)) & 15u);
        if (d >= b)
            goto bad;
        v = v * b + d;
    }
    i++;
    goto next;
done:
    return v;
bad:
    return -1 - i;
empty:
    return 0;
}
