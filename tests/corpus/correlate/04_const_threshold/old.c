/* entry: classify — threshold 100 raised to 128 */
int classify(int x)
{
    x %= 256;
    if (x > 100)
        return 2;
    if (x > 10)
        return 1;
    if (x < -10)
        return -1;
    return 0;
}
