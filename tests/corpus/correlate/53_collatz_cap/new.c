/* entry: collatz — step cap raised from 100 to 150 */
int collatz(unsigned x)
{
    unsigned v = (x & 0xfffu) + 1u;
    int steps = 0;
    while (v != 1u && steps < 150) {
        if (v & 1u)
            v = 3u * v + 1u;
        else
            v /= 2u;
        steps++;
    }
    return steps;
}
