/* Both conditions negated and their branches swapped, one product rewritten as a sum. */
int mix(unsigned a, int b)
{
    int r = 0;
    if (b & 4) {
        r = (int)(a ^ 0x5a) & 255;
    } else {
        r = (int)(a >> 3) | 1;
        if (r & 8)
            return -r;
    }
    if (!(a > 100)) {
        r += b * 2;
    } else {
        r = r ^ b;
    }
    return r + 7;
}
