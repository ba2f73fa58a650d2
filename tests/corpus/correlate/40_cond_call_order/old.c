/* entry: gate — operands of && swapped; the helper has a side effect on a global */
static int probes;

static int expensive(int a)
{
    probes++;
    return (a & 3) != 0;
}

int gate(int a, int b)
{
    int r = 0;
    if (expensive(a) && b > 0)
        r = 1;
    return r * 10 + probes;
}
