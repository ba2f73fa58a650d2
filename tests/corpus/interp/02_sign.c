/* entry: sign3 */
/* The paper's sign example plus nested conditional expressions and an early return. */
int sign3(int x, int y)
{
    int sgn;
    if (x < 0)
        sgn = -1;
    else
        sgn = 1;
    if (x == 0)
        sgn = 0;
    if (y == 0)
        return sgn;
    int t = y < 0 ? (x < 0 ? 2 : -2) : (x > 0 ? 3 : (x == 0 ? 0 : -3));
    return sgn * 10 + t;
}
