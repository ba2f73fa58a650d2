/* entry: sign — new version adds the x == 0 case (the DIZY paper's running example) */
int sign(int x)
{
    int sgn;
    if (x < 0)
        sgn = -1;
    else
        sgn = 1;
    return sgn;
}
