/* Pick one of two shifted values. */
long pick(int a, int b, int c)
{
    if (a > b)
        return (long)a - c;
    return (long)b + c;
}
