/* Same sum with a while loop. */
long odd_sum(int n)
{
    long s = 0;
    int i;
    if (n > 200)
        n = 200;
    i = 0;
    while (i < n) {
        s += 2 * i + 1;
        i++;
    }
    return s;
}
