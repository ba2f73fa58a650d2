/* Same, with the branches swapped and the condition negated. */
long span(int x, int y)
{
    long r;
    if (x >= y)
        r = (long)x - y + 1;
    else
        r = (long)y - x;
    return r;
}
