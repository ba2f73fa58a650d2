/* entry: incdec */
/* Pre/post increment and decrement inside expressions and array subscripts. */
int incdec(int a, int b)
{
    a &= 0xffff;
    b = b % 1000;
    int c = a++ + 3;
    int d = --b * 2;
    int e = a-- - b++;
    int arr[4] = {0, 0, 0, 0};
    int i = 0;
    arr[i++] = c;
    arr[i++] = d;
    arr[++i] = e;
    arr[2] = i-- * 5;
    return arr[0] + arr[1] * 3 + arr[2] + arr[3] * 7 + i + a + b;
}
