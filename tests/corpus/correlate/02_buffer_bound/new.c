/* entry: foo — the clamp n = 41 becomes n = 40 */
int foo(int n)
{
    char In[42];
    int i = 0;
    if (n >= 42)
        n = 40;
    while (i < n) {
        int j = i + 1;
        In[i] = (char)j;
        i++;
    }
    return i;
}
