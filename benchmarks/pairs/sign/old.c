/* The DIZY paper's running example (Figure 1, left): the sign of x. */
int sign(int x)
{
    int sgn;
    if (x < 0)
        sgn = -1;
    else
        sgn = 1;
    return sgn;
}
