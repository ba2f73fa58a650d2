/* entry: process — early returns replaced by gotos to a common cleanup label (same semantics) */
static int opened;

int process(int a, int b)
{
    int r;
    opened++;
    if (a < 0) {
        opened--;
        return -1;
    }
    r = (a & 0xfff) + (b & 0xff);
    if (r > 3000) {
        opened--;
        return -2;
    }
    opened--;
    return r + opened * 10000;
}
