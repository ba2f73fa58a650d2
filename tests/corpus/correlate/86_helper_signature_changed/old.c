/* entry: quantize — helper gains a rounding-mode parameter */
static int q(int v, int step)
{
    return v / step * step;
}

int quantize(int v, int step)
{
    int s = (step & 63) + 1;
    return q(v % 100000, s);
}
