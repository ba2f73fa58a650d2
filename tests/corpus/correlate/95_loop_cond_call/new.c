/* entry: drain — loop condition calls a helper that consumes a global stream; operands of && swapped */
static unsigned stream = 0x2545f491u;
static int pulled;

static int pull(void)
{
    pulled++;
    stream ^= stream << 13;
    stream ^= stream >> 17;
    stream ^= stream << 5;
    return (int)(stream & 7u);
}

int drain(int n)
{
    int m = n & 31;
    int i = 0, s = 0;
    while (pull() != 0 && i < m) {
        s += (int)(stream & 0xffu);
        i++;
    }
    return s * 100 + pulled;
}
