/* entry: find_divisor */
/* Trial division with an early return inside a while loop and a nested if/else chain. */
int find_divisor(unsigned n, int from)
{
    unsigned m = n % 100000u;
    unsigned d = 2 + (unsigned)(from & 7);
    if (m < 2)
        return 0;
    while (d * d <= m) {
        if (m % d == 0) {
            if (d == 2)
                return -2;
            else if (d % 3 == 0)
                return (int)d * 10;
            else
                return (int)d;
        }
        d++;
    }
    return (int)m;
}
