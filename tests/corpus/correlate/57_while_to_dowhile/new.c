/* entry: nbits — while loop changed to do-while (differs for v == 0) */
int nbits(unsigned v)
{
    int n = 0;
    do {
        n++;
        v >>= 1;
    } while (v);
    return n;
}
