/* entry: digits — a do-while whose first iteration the new version runs before a while loop; same semantics */
int digits(unsigned v)
{
    int d = 0;
    v /= 10u;
    d++;
    while (v != 0u) {
        v /= 10u;
        d++;
    }
    return d;
}
