/* entry: countdown — loop test k-- > 0 changed to --k > 0 */
int countdown(int n, int step)
{
    int k = n & 255;
    int s = step & 15;
    int acc = 0;
    while (--k > 0)
        acc += s;
    return acc * 2 + k;
}
