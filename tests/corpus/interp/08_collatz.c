/* entry: collatz_steps */
/* Collatz iteration on unsigned long (3n+1 wraps), bounded by a masked limit, break out of the loop. */
int collatz_steps(unsigned long n, int limit)
{
    int steps = 0;
    int max = limit & 255;
    if (n == 0)
        return -1;
    while (n != 1) {
        if (steps >= max)
            break;
        if (n % 2 == 0)
            n /= 2;
        else
            n = 3 * n + 1;
        steps++;
    }
    return n == 1 ? steps : -steps;
}
