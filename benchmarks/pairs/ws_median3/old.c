/* Middle value of three. */
int median3(int a, int b, int c)
{
    if (a > b) {
        int t = a;
        a = b;
        b = t;
    }
    /* now a <= b */
    if (b > c)
        b = c;
    if (a > b)
        return a;
    return b;
}
