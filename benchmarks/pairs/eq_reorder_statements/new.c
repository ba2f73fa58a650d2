/* The same intermediate values computed in the opposite order. */
long mix(int a, int b, int c)
{
    long t = 3L * c;
    long d = (long)b - c;
    long s = (long)a + b;
    return 2 * s - d + t;
}
