/* entry: countdown */
/* Loops on unsigned counters: while (n--) leaves n wrapped, an unsigned char counter wrapping
   past 255, a down-counting for loop that stops at zero. */
unsigned countdown(unsigned n, unsigned char start)
{
    unsigned steps = 0;
    n &= 63;
    while (n--)
        steps += 2;
    unsigned after = n;
    unsigned char c = start;
    int laps = 0;
    for (int i = 0; i < 300; i++) {
        c++;
        if (c == 0)
            laps++;
    }
    unsigned down = 0;
    for (unsigned k = start & 15; k > 0; k--)
        down += k;
    return steps + after + (unsigned)laps * 1000u + c + down * 7u;
}
