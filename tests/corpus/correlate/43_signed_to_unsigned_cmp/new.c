/* entry: below — comparison now done on unsigned copies */
int below(int a, int b)
{
    unsigned x = a;
    unsigned y = b;
    return x < y ? 1 : 0;
}
