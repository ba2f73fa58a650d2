/* lib */
int bonus(int x)
{
    if (x < 5)
        return 0;
    return x;
}

/* client */
int client(int x)
{
    int b = bonus(x);
    return b > 10 ? b : 10;
}
