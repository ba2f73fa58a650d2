/* Three independent intermediate values, then a combination of them. */
long mix(int a, int b, int c)
{
    long s = (long)a + b;
    long d = (long)b - c;
    long t = 3L * c;
    return 2 * s - d + t;
}
