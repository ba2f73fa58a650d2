/* Slot of a ring buffer with 9 slots after n steps (n capped at 1000). */
int ring_slot(int n)
{
    int idx = 0;
    int i;
    if (n > 1000)
        n = 1000;
    for (i = 0; i < n; i++) {
        idx++;
        if (idx > 8)
            idx = 0;
    }
    return idx;
}
