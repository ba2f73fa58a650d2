/* entry: to_base_sum */
/* do-while digit loop in a masked base with weighted digit sum. */
int to_base_sum(unsigned x, int base)
{
    int b = 2 + (base & 15);
    int sum = 0, n = 0;
    do {
        sum += (int)(x % (unsigned)b) * (n + 1);
        x /= (unsigned)b;
        n++;
    } while (x > 0);
    return sum * 100 + n;
}
