/* entry: ticket — static local counter: starts at 100 instead of 0 */
int ticket(int x)
{
    static int next;
    int t = next;
    next += (x & 3) + 1;
    return t * 10 + next;
}
