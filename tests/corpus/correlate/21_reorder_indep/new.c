/* entry: mix — two independent assignments swapped (same semantics) */
int mix(int a, int b)
{
    int x = a & 0xffff;
    int y = b & 0xff;
    int s, t;
    t = x - y;
    s = x + y;
    return s * 2 + t;
}
