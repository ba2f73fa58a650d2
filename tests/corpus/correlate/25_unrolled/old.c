/* entry: dot4 — fixed four-iteration loop unrolled (same semantics) */
int dot4(int a, int b)
{
    int s = 0;
    for (int i = 0; i < 4; i++) {
        int da = (a >> (8 * i)) & 0xff;
        int db = (b >> (8 * i)) & 0xff;
        s += da * db;
    }
    return s;
}
