/* entry: lcg_steps — multiplier constant inside the loop changed */
unsigned lcg_steps(unsigned seed, int n)
{
    int m = n & 15;
    unsigned s = seed;
    for (int i = 0; i < m; i++)
        s = s * 1103515245u + 12345u;
    return s >> 8;
}
