/* The DIZY paper's buffer-handling example (appendix A): n bytes are copied
   into a local buffer, with n capped first. Patched cap: 40.
   Returns the number of bytes copied. */
int copy_in(int n)
{
    char In[42];
    int i = 0;
    if (n >= 42)
        n = 40;
    while (i < n) {
        int j = i + 1;
        In[i] = (char)j;        /* stands for In[i] = Out[j] */
        i++;
    }
    return i;
}
