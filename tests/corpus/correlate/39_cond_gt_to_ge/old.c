/* entry: halve — loop condition v > 1 changed to v >= 1 */
int halve(unsigned v)
{
    int c = 0;
    while (v > 1u) {
        v >>= 1;
        c++;
    }
    return c;
}
