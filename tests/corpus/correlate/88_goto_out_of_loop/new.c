/* entry: validate — error exit from inside the loop via goto; the new version also rejects digit 9 */
int validate(unsigned long digits, int len)
{
    int n = len & 15;
    long v = 0;
    for (int i = 0; i < n; i++) {
        int d = (int)((digits >> (4 * i)) & 15ul);
        if (d > 8)
            goto bad;
        v = v * 10 + d;
    }
    return (int)(v % 1000003);
bad:
    return -1;
}
