/* entry: fact_mix */
/* Recursive factorial in long (int * long promotion), input reduced modulo 21. */
static long fact(int n)
{
    return n <= 1 ? 1 : n * fact(n - 1);
}

long fact_mix(int x, long m)
{
    int n = (int)((unsigned)x % 21u);
    long f = fact(n);
    if (m > 0)
        return f % m;
    if (m < -1)
        return f / m;
    return f;
}
