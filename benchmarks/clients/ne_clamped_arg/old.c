/* lib */
int price(int units)
{
    if (units > 100)
        return units * 4;
    return units * 5;
}

/* client */
int client(int q)
{
    int n = q;
    if (n > 50)
        n = 50;
    if (n < 0)
        n = 0;
    return price(n);
}
