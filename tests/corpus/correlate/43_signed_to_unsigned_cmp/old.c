/* entry: below — comparison now done on unsigned copies */
int below(int a, int b)
{
    int x = a;
    int y = b;
    return x < y ? 1 : 0;
}
