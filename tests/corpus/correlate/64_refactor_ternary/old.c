/* entry: absdiff — if/else replaced by a conditional expression (same semantics) */
int absdiff(int a, int b)
{
    int x = a % 100000;
    int y = b % 100000;
    int d;
    if (x > y)
        d = x - y;
    else
        d = y - x;
    return d;
}
