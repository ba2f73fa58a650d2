/* entry: digest — helper called in the loop changed its modulus */
static int fold(int acc, int d)
{
    return (acc * 7 + d) % 1013;
}

int digest(unsigned v, int n)
{
    int m = n & 15;
    int acc = 1;
    for (int i = 0; i < m; i++)
        acc = fold(acc, (int)((v >> (2 * i)) & 3u));
    return acc;
}
