/* entry: comma_op */
/* The comma operator in for headers, in expressions and in conditional operands. */
int comma_op(int n, int m)
{
    int i, j, s = 0, t = 0;
    n &= 15;
    m &= 15;
    for (i = 0, j = n; i < j; i++, j--) {
        s = (s ^ i, s + j);
        t = (s++, s * 2);
    }
    int k = (n > m ? (s += 3, n) : (s -= 1, m));
    return (s, t) + k * 100 + s;
}
