/* entry: scale — additive constant changed from 7 to 9 */
long scale(int x, int y)
{
    long a = (long)x * 3;
    long b = (long)y / 4;
    return a + b + 9;
}
