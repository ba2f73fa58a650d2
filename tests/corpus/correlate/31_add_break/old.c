/* entry: find_div — break added: first divisor instead of the last one */
int find_div(int x)
{
    int v = (x & 1023) + 2;
    int d = 0;
    for (int i = 2; i < 32; i++) {
        if (v % i == 0) {
            d = i;
        }
    }
    return d;
}
