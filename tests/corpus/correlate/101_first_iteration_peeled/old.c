/* entry: horner — the first iteration peeled before the loop; same semantics */
unsigned horner(unsigned n, unsigned x)
{
    unsigned m = n & 15u;
    unsigned s = 0, i = 0;
    while (i < m) {
        s = s * 3u + x;
        i++;
    }
    return s;
}
