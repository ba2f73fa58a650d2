/* Two points per step while counting n down to 0 (n capped at 1000). */
long count_down(int n)
{
    long steps = 0;
    if (n > 1000)
        n = 1000;
    while (n > 0) {
        steps += 2;
        n--;
    }
    return steps;
}
