/* lib */
int parse_digit(int c)
{
    if (c < '0')
        return -2;
    if (c > '9')
        return -2;
    return c - '0';
}

/* client */
int client(int c)
{
    int d = parse_digit(c);
    if (d < 0)
        return 0;
    return 1;
}
