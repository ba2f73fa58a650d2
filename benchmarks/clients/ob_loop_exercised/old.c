/* lib */
int step(int i)
{
    return i;
}

/* client */
int client(int n)
{
    int s = 0;
    if (n > 8)
        n = 8;
    for (int i = 0; i < n; i++)
        s += step(i);
    return s;
}
