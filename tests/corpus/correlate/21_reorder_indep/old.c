/* entry: mix — two independent assignments swapped (same semantics) */
int mix(int a, int b)
{
    int x = a & 0xffff;
    int y = b & 0xff;
    int s, t;
    s = x + y;
    t = x - y;
    return s * 2 + t;
}
