/* entry: stats — squared term in the loop changed from i*i to (i+1)*(i+1) */
int stats(int n)
{
    int m = n & 127;
    int s = 0, q = 0;
    for (int i = 0; i < m; i++) {
        s += i;
        q += i * i;
    }
    return s * 3 + q;
}
