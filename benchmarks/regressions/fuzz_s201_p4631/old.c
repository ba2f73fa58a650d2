
int f(char a)
{
    int y = 127;
    int i0 = 0;
    i0 = 0;
L1:
    if (!(i0 < 7)) goto L1_end;
    y += 1;
    i0++;
    goto L1;
L1_end:;
    return y;
}
