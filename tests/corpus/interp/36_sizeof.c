/* entry: sizes */
/* sizeof on types, expressions, arrays, structs with padding; the operand is not evaluated. */
struct padded {
    char c;
    int i;
    double d;
    short h;
};

unsigned long sizes(int x, long y)
{
    int arr[7];
    unsigned long r = sizeof(int) + sizeof(long) * 10 + sizeof(arr) * 100 + sizeof(struct padded) * 1000 +
                      sizeof x + sizeof(y + x) * 100000 + sizeof(char) + sizeof(short) * 7 +
                      sizeof(unsigned long long) * 3 + sizeof(_Bool) + sizeof(float) * 11 + sizeof arr[0];
    r += sizeof(x++);
    return r + (unsigned long)x;
}
