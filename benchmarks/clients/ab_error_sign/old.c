/* lib */
int parse_digit(int c)
{
    if (c < '0' || c > '9')
        return -1;
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
