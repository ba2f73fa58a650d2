/* entry: logic_side */
/* && and || with side effects on both sides (i++ && f(x)), a helper counting its calls in a global. */
static int calls;

static int check(int v)
{
    calls++;
    return v % 3 == 0;
}

int logic_side(int x, int y)
{
    int i = x & 1;
    int r = 0;
    calls = 0;
    if (i++ && check(y))
        r += 1;
    if (i-- || check(y + 0))
        r += 2;
    if ((x > 0 && check(x)) || (y < 0 && check(-(y / 2))))
        r += 4;
    int j = 0;
    int t = (j++ > 0) && check(j);
    int u = (y & 4) || (j += 10);
    return r * 1000 + calls * 100 + i * 10 + j + t + u;
}
