/* Twice x, minus y. */
long twice_minus(int x, int y)
{
    long a = (long)x * 2;
    return a - y;
}
