/* Twice x written as an addition, minus y. */
long twice_minus(int x, int y)
{
    long a = (long)x + x;
    return a - y;
}
