/* entry: skip_multiples */
/* continue inside do-while jumps to the loop test; break leaves the loop. */
int skip_multiples(int n, int k)
{
    int i = 0, s = 0;
    n &= 63;
    k = (k & 7) + 2;
    do {
        i++;
        if (i % k == 0)
            continue;
        s += i;
        if (s > 1000)
            break;
    } while (i < n);
    return s * 100 + i;
}
