/* entry: scan_runs */
/* A tiny state machine over the bits of a word: enum states, switch inside a loop, continue from a
   switch, break out of the loop. */
enum state { START, IN_ONES, IN_ZEROS, DONE };

int scan_runs(unsigned long bits, int n)
{
    enum state s = START;
    int runs = 0, longest = 0, cur = 0;
    int len = n & 63;
    for (int i = 0; i < len; i++) {
        int b = (int)((bits >> i) & 1);
        switch (s) {
        case START:
            s = b ? IN_ONES : IN_ZEROS;
            cur = 1;
            runs = 1;
            continue;
        case IN_ONES:
            if (b) {
                cur++;
                break;
            }
            s = IN_ZEROS;
            runs++;
            cur = 1;
            break;
        case IN_ZEROS:
            if (!b) {
                cur++;
                break;
            }
            s = IN_ONES;
            runs++;
            cur = 1;
            break;
        case DONE:
            break;
        }
        if (cur > longest)
            longest = cur;
        if (runs > 20) {
            s = DONE;
            break;
        }
    }
    if (cur > longest)
        longest = cur;
    return s == DONE ? -runs : runs * 100 + longest;
}
