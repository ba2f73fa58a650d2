/* entry: in_range — && changed to || */
int in_range(int x, int lo, int hi)
{
    if (x >= lo || x <= hi)
        return 1;
    return 0;
}
