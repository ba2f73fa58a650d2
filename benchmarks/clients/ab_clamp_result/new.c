/* lib */
int gain(int x)
{
    if (x > 50)
        return x * 3;
    return x * 2;
}

/* client */
int client(int x)
{
    int r = gain(x);
    if (r > 100)
        r = 100;
    return r;
}
