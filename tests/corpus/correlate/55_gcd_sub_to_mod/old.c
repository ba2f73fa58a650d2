/* entry: gcd_loop — subtraction-based gcd replaced by Euclid's modulo loop (same semantics) */
int gcd_loop(int a, int b)
{
    int x = (a & 0x3ff) + 1;
    int y = (b & 0x3ff) + 1;
    while (x != y) {
        if (x > y)
            x -= y;
        else
            y -= x;
    }
    return x;
}
