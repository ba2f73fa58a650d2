/* The second condition negated but its branches not swapped: a real change. */
int mix(unsigned a, int b)
{
    int r = 0;
    if (!(b & 4)) {
        r = (int)(a >> 3) | 1;
        if (r & 8)
            return -r;
    } else {
        r = (int)(a ^ 0x5a) & 255;
    }
    if (!(a > 100)) {
        r = r ^ b;
    } else {
        r += b + b;
    }
    return r + 7;
}
