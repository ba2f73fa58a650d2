/* entry: fold — same semantics: locals renamed, one of them shadowed in an inner block */
int fold(int a, int b)
{
    int sum = a & 15;
    unsigned rest = (unsigned)b;
    if (b > 20)
        b = 20;
    for (int i = 0; i < b; i++) {
        int mixed = sum ^ i;
        sum = mixed * 2 - (int)(rest & 7);
        rest >>= 1;
        if (sum > 1000) {
            int i = sum % 7;
            sum = i;
        }
    }
    return sum * 3 + (int)rest;
}
