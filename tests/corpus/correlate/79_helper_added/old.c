/* entry: score — new version routes the value through a new static helper that saturates it */
int score(int hits, int misses)
{
    int h = hits & 0x3ff;
    int m = misses & 0x3ff;
    int s = h * 4 - m * 2;
    return s;
}
