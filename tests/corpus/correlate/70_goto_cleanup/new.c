/* entry: process — early returns replaced by gotos to a common cleanup label (same semantics) */
static int opened;

int process(int a, int b)
{
    int r;
    opened++;
    if (a < 0) {
        r = -1;
        goto out;
    }
    r = (a & 0xfff) + (b & 0xff);
    if (r > 3000) {
        r = -2;
        goto out;
    }
    r = r + (opened - 1) * 10000;
out:
    opened--;
    return r;
}
