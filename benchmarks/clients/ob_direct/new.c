/* lib */
int half(int x)
{
    if (x > 0)
        return (x + 1) / 2;
    return x / 2;
}

/* client */
int client(int x)
{
    return half(x) + 1;
}
