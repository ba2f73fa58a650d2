/* 1 when x lies outside [lo, hi] and no override flag is set, else 0. */
int reject(int x, int lo, int hi, int flag)
{
    if (!(x >= lo && x <= hi) && !(flag != 0))
        return 1;
    return 0;
}
