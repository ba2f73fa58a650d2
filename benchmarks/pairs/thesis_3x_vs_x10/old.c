/* The acyclic example of the inequivalence thesis (eq. 3.1): src computes 3x. */
int scale(int x)
{
    if (x > 100000 || x < -100000)
        return 0;
    return 3 * x;
}
