/* entry: poly — counter update removed from the loop body */
long poly(int x, int n)
{
    long acc = 0;
    long cnt = 0;
    int m = n & 15;
    long xv = x % 1000;
    for (int i = 0; i < m; i++) {
        acc = acc * 2 + xv;
        cnt++;
    }
    return acc + cnt;
}
