/* entry: window — local array filled in one loop and read in a second; the window start changed */
int window(unsigned v, int w)
{
    int a[16];
    for (int i = 0; i < 16; i++)
        a[i] = (int)((v >> (2 * i)) & 3u);
    int k = w & 7;
    int s = 0;
    for (int i = k; i < k + 8; i++)
        s = s * 3 + a[i];
    return s;
}
