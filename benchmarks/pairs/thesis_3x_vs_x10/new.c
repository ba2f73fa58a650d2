/* dst computes x + 10: the two agree exactly at x = 5. */
int scale(int x)
{
    if (x > 100000 || x < -100000)
        return 0;
    return x + 10;
}
