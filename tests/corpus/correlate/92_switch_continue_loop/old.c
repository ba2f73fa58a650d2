/* entry: runs — state machine: continue from inside a switch in a loop; one transition changed */
int runs(unsigned long bits, int n)
{
    int len = n & 63;
    int state = 0, count = 0, longest = 0, cur = 0;
    for (int i = 0; i < len; i++) {
        int b = (int)((bits >> i) & 1ul);
        switch (state) {
        case 0:
            state = b ? 1 : 2;
            cur = 1;
            count = 1;
            continue;
        case 1:
            if (b) {
                cur++;
                break;
            }
            state = 2;
            count++;
            cur = 1;
            break;
        default:
            if (!b) {
                cur++;
                break;
            }
            state = 1;
            count++;
            cur = 1;
            break;
        }
        if (cur > longest)
            longest = cur;
    }
    return count * 100 + longest;
}
