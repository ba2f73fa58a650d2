/* entry: goto_loop */
/* A loop written with a backward goto and a forward goto out of it. */
unsigned goto_loop(unsigned n, unsigned step)
{
    unsigned acc = 0, i = 0;
    n &= 31;
    step = (step & 7) + 1;
again:
    if (i >= n)
        goto out;
    acc = acc * 31u + i;
    i += step;
    goto again;
out:
    return acc ^ i;
}
