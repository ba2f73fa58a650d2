/* entry: negated */
/* Conditions with `!` and constant conditions: lowered with their branches swapped. */
int negated(int x, unsigned u, char c)
{
    int r = 0;
    int n = x % 20;
    if (!(n++ > 3)) {
        r += n;
    } else {
        r -= n * 2;
    }
    if (!u) {
        r ^= 5;
    } else if (!!(u & 2)) {
        r += (int)(u & 7);
    } else {
        r -= 1;
    }
    if (0) {
        r = 100;
    } else {
        r += c;
    }
    if (!(c == 'a' || x < 0)) {
        r *= 3;
    }
    while (!(n > 10)) {
        n += 3;
        if (!(n & 1))
            continue;
        else
            r++;
    }
    return r + n;
}
