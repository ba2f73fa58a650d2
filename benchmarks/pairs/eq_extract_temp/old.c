/* How far x + y goes over cap (0 if it does not). */
long excess(int x, int y, int cap)
{
    if ((long)x + y > cap)
        return (long)x + y - cap;
    return 0;
}
