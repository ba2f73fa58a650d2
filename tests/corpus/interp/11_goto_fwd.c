/* entry: validate */
/* Forward gotos to shared exit paths (error handling style). */
int validate(int a, int b, int c)
{
    int err = 0;
    int r = 0;
    if (a < 0) {
        err = 1;
        goto fail;
    }
    if (b == 0) {
        err = 2;
        goto fail;
    }
    r = a % b;
    if (c > 100)
        goto done;
    r += c & 0xff;
    if (r > 200) {
        err = 3;
        goto fail;
    }
done:
    return r;
fail:
    return -err;
}
