/* lib */
int clip(int v)
{
    if (v > 1000)
        return 1000;
    return v;
}

int norm(int x)
{
    if (x < 0)
        return 0;
    return clip(x % 100);
}

/* client */
int client(int x)
{
    if (x < 0)
        return -1;
    return norm(x) * 3;
}
