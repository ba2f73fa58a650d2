/* entry: count — the loop unrolled by hand (a second, guarded copy of the body); same semantics */
int count(int n, int x)
{
    int m = n & 31;
    int i = 0, s = 0;
    while (i < m) {
        s = s + x % 7;
        i++;
    }
    return s;
}
