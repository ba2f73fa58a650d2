/* entry: pick — same semantics: conditions negated and branches swapped, one with a loop inside */
int pick(int a, int b)
{
    int s = 0;
    a &= 255;
    b &= 255;
    if (!(a > b)) {
        s = b - a;
        if (s & 1)
            return s;
    } else {
        for (int i = 0; i < 6 && i < a; i++)
            s += (b ^ i) & 7;
    }
    if (b++ & 2)
        s -= a;
    else
        s += b;
    return s * 2 + b;
}
