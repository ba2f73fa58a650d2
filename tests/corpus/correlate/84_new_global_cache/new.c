/* entry: cost — new version memoizes the last result in new static globals (same semantics per call) */
static int evaluations;
static int cached_key = -1;
static int cached_val;

static int expensive(int k)
{
    evaluations++;
    int r = 0;
    for (int i = 0; i < (k & 15); i++)
        r += i * k;
    return r;
}

int cost(int x)
{
    int k = x & 1023;
    if (cached_key != k) {
        cached_val = expensive(k);
        cached_key = k;
    }
    return cached_val + evaluations * 100000;
}
