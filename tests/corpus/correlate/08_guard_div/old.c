/* entry: safe_div — guard against INT_MIN / -1 added to the zero check */
int safe_div(int a, int b)
{
    if (b == 0)
        return 0;
    return a / b;
}
