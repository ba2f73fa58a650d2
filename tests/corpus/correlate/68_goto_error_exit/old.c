/* entry: parse_cfg — new forward error exit via goto for large values */
int parse_cfg(int mode, int val)
{
    int rc = 0;
    int v = val % 1000;
    if (mode < 0)
        goto fail;
    if (v < 0)
        v = -v;
    rc = v * 2 + mode % 3;
    return rc;
fail:
    return -1;
}
