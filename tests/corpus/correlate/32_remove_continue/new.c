/* entry: skip_mult — continue removed: multiples of 3 are no longer skipped */
int skip_mult(int n)
{
    int m = n & 127;
    int s = 0;
    for (int i = 0; i < m; i++) {
        s += i;
    }
    return s;
}
