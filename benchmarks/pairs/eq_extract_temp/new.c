/* Same, with the repeated sum held in a temporary. */
long excess(int x, int y, int cap)
{
    long sum = (long)x + y;
    if (sum > cap)
        return sum - cap;
    return 0;
}
