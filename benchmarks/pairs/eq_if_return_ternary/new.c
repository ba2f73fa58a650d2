/* Same choice as a conditional expression. */
long pick(int a, int b, int c)
{
    return a > b ? (long)a - c : (long)b + c;
}
