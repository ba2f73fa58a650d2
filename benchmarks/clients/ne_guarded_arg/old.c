/* lib */
int scale(int x)
{
    return x * 2;
}

/* client */
int client(int a)
{
    if (a >= 0)
        return scale(a) + 1;
    return -1;
}
