/* entry: scan_pairs — continue added in a while loop whose increment precedes it */
int scan_pairs(unsigned v)
{
    int i = 0, s = 0;
    while (i < 16) {
        unsigned b = (v >> (2 * i)) & 3u;
        i++;
        if (b == 3u)
            continue;
        s += (int)b;
    }
    return s;
}
