/* entry: valid — negated conjunction rewritten with De Morgan and a renamed local (same semantics) */
int valid(int a, int b, int c)
{
    int ok = 1;
    if (!(a > 0 && b > 0))
        ok = 0;
    if (c == 0)
        ok = ok * 2;
    return ok;
}
