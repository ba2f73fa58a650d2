/* entry: retry */
/* A retry loop written with a backward goto and a forward goto to the success path. */
int retry(int x, unsigned tries)
{
    int attempts = 0;
    unsigned t = tries & 7;
    int v = x % 100;
again:
    attempts++;
    if (v % 7 == 3)
        goto success;
    v = v * 3 + 1;
    if (attempts <= (int)t)
        goto again;
    return -attempts;
success:
    return attempts * 1000 + v;
}
