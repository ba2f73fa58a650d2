/* lib */
int overflows;

void record(int v)
{
    if (v > 100)
        overflows++;
}

/* client */
int client(int v)
{
    record(v);
    return overflows;
}
