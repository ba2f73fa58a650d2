/* entry: quantize — helper gains a rounding-mode parameter */
static int q(int v, int step, int up)
{
    int r = v / step * step;
    if (up && r < v)
        r += step;
    return r;
}

int quantize(int v, int step)
{
    int s = (step & 63) + 1;
    return q(v % 100000, s, 1);
}
