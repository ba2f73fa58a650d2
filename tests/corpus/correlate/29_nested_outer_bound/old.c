/* entry: grid — outer bound changed from rows to rows - 1, inner loop depends on the outer index */
long grid(int rows, int cols)
{
    int r = rows & 15;
    int c = cols & 15;
    long acc = 0;
    for (int i = 0; i < r; i++)
        for (int j = i; j < c; j++)
            acc += (long)(i + 1) * (j + 2);
    return acc;
}
