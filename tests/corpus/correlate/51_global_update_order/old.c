/* entry: step — global state mixed with the input before instead of after the generator step */
unsigned state = 12345u;
int calls;

static unsigned next(void)
{
    state = state * 1103515245u + 12345u;
    return (state >> 16) & 0x7fffu;
}

int step(int x)
{
    calls++;
    unsigned r = next();
    state ^= (unsigned)x;
    int v = (int)(r % 100u);
    return v * 100 + (int)(state & 63u) + calls;
}
