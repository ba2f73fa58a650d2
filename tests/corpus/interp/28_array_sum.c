/* entry: array_ops */
/* A local array filled by an LCG, summed, maximised and partially reversed in place. */
int array_ops(int n, int seed)
{
    int a[16];
    int len = n & 15;
    unsigned s = (unsigned)seed;
    for (int i = 0; i < 16; i++) {
        s = s * 1103515245u + 12345u;
        a[i] = (int)((s >> 16) & 0x7fff);
    }
    int sum = 0, max = a[0];
    for (int i = 0; i <= len; i++) {
        sum += a[i];
        if (a[i] > max)
            max = a[i];
    }
    for (int i = 0, j = len; i < j; i++, j--) {
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
    return sum - max + a[0] * 2 - a[len];
}
