/* Same, with an early return that only repeats what the loop does anyway. */
long count_down(int n)
{
    long steps = 0;
    if (n <= 0)
        return 0;
    if (n > 1000)
        n = 1000;
    while (n > 0) {
        steps += 2;
        n--;
    }
    return steps;
}
