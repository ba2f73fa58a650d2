/* entry: nbits — while loop changed to do-while (differs for v == 0) */
int nbits(unsigned v)
{
    int n = 0;
    while (v) {
        n++;
        v >>= 1;
    }
    return n;
}
