/* entry: matrix_trace */
/* A two-dimensional local array: fill, multiply by a constant global matrix, trace and column sum. */
static const int id3[3][3] = {{1, 0, 0}, {0, 2, 0}, {1, 0, 3}};

int matrix_trace(int seed, unsigned char k)
{
    int m[3][3];
    int p[3][3];
    int s = seed % 50;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            m[i][j] = s + i * 3 - j * (k & 7);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            p[i][j] = 0;
            for (int t = 0; t < 3; t++)
                p[i][j] += m[i][t] * id3[t][j];
        }
    int tr = 0, col = 0;
    for (int i = 0; i < 3; i++) {
        tr += p[i][i];
        col += p[i][k % 3];
    }
    return tr * 1000 + col;
}
