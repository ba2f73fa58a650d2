/* entry: repeat_add — guarded do-while rewritten as a while loop (same semantics) */
int repeat_add(int x, int n)
{
    int k = n & 63;
    int s = x & 0xff;
    while (k > 0) {
        s += k;
        k--;
    }
    return s;
}
