/* entry: triangle — early return for negative k added before the loop */
int triangle(int n)
{
    int k = n % 100;
    int t = 0;
    for (int i = 1; i <= k; i++)
        t += i;
    return t + k;
}
