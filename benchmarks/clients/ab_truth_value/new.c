/* lib */
int is_big(int v)
{
    if (v > 10)
        return v;
    return 0;
}

/* client */
int client(int v)
{
    if (is_big(v) != 0)
        return 7;
    return 3;
}
