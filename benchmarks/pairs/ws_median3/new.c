/* median3: the middle one of three values, found with two compare-and-swap
   steps. */
int median3(int a, int b, int c)
{
    if (a > b) {               /* order the first two */
        int t = a;
        a = b;
        b = t;
    }
    if (b > c)                 /* b becomes min(b, c) */
        b = c;
    if (a > b)
        return a;
    return b;                  // the median
}
