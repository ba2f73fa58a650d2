/* entry: matrix_trace — identical versions: nested loops, a switch and a helper */
static int cell(int i, int j, int seed)
{
    return ((i * 31 + j * 17) ^ seed) & 0xff;
}

int matrix_trace(int seed, int n)
{
    int m = n & 15;
    int tr = 0, off = 0;
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < m; j++) {
            int v = cell(i, j, seed);
            if (i == j)
                tr += v;
            else if (v > 200)
                break;
            else
                off += v & 3;
        }
        switch (i & 3) {
        case 0:
            tr++;
            break;
        case 3:
            off--;
        default:
            break;
        }
    }
    return tr * 1000 + off;
}
