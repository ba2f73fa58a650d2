/* entry: pick — same semantics: conditions negated and branches swapped, one with a loop inside */
int pick(int a, int b)
{
    int s = 0;
    a &= 255;
    b &= 255;
    if (a > b) {
        for (int i = 0; i < 6 && i < a; i++)
            s += (b ^ i) & 7;
    } else {
        s = b - a;
        if (s & 1)
            return s;
    }
    if (!(b++ & 2))
        s += b;
    else
        s -= a;
    return s * 2 + b;
}
