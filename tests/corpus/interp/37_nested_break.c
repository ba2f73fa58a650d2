/* entry: nested_break */
/* break and continue in nested loops, an early return from the inner loop, goto out of both. */
int nested_break(int n, int m)
{
    int count = 0;
    n &= 15;
    m &= 15;
    for (int i = 0; i < n; i++) {
        if (i == 7)
            continue;
        int j = 0;
        while (1) {
            if (j >= m)
                break;
            j++;
            if ((i + j) % 3 == 0)
                continue;
            if (i * j > 50)
                return -count;
            count += i ^ j;
            if (count > 300)
                goto out;
        }
        if (count % 5 == 4)
            break;
    }
out:
    return count;
}
