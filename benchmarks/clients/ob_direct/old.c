/* lib */
int half(int x)
{
    return x / 2;
}

/* client */
int client(int x)
{
    return half(x) + 1;
}
