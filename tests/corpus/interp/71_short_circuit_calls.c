/* entry: guarded_calls */
/* Helpers with side effects on globals called from conditions, loop conditions and ?: arms:
   evaluation order and short-circuiting decide which side effects happen. */
static int log_[8];
static int nlog;

static int note(int v)
{
    if (nlog < 8)
        log_[nlog] = v;
    nlog++;
    return v;
}

int guarded_calls(int x, int y)
{
    int a = x & 15, b = y & 15;
    int k = 0;
    while (note(k) < a && (k & 1 ? note(b) : 1))
        k++;
    int t = a > b ? note(100 + a) : (b > 3 || note(200 + b)) ? note(300) : 0;
    if (note(a) == 0 || note(b) == 0)
        t += 1;
    unsigned h = 0;
    for (int i = 0; i < nlog && i < 8; i++)
        h = h * 31u + (unsigned)log_[i];
    return (int)(h % 100000u) + nlog * 100000 + t;
}
