/* Same test with the negations pushed inwards. */
int reject(int x, int lo, int hi, int flag)
{
    if ((x < lo || x > hi) && flag == 0)
        return 1;
    return 0;
}
