/* lib */
int weight(int i)
{
    if (i < 0)
        return 0;
    return i + 1;
}

/* client */
int client(int n)
{
    int best = 0;
    if (n > 16)
        n = 16;
    for (int i = 0; i < n; i++) {
        int w = weight(i);
        if (w > best)
            best = w;
    }
    return best;
}
