/* entry: valid — negated conjunction rewritten with De Morgan and a renamed local (same semantics) */
int valid(int a, int b, int c)
{
    int good = 1;
    if (a <= 0 || b <= 0)
        good = 0;
    if (c == 0)
        good = good * 2;
    return good;
}
