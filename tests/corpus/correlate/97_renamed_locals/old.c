/* entry: fold — same semantics: locals renamed, one of them shadowed in an inner block */
int fold(int a, int b)
{
    int acc = a & 15;
    unsigned bits = (unsigned)b;
    if (b > 20)
        b = 20;
    for (int k = 0; k < b; k++) {
        int acc2 = acc ^ k;
        acc = acc2 * 2 - (int)(bits & 7);
        bits >>= 1;
        if (acc > 1000) {
            int k = acc % 7;
            acc = k;
        }
    }
    return acc * 3 + (int)bits;
}
