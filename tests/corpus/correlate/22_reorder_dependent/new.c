/* entry: fib_like — dependent statements in the loop body reordered (changes the result) */
int fib_like(int n)
{
    int m = n & 31;
    int a = 0, b = 1;
    for (int i = 0; i < m; i++) {
        a = b;
        int t = a + b;
        b = t % 10007;
    }
    return a;
}
