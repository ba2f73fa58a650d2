/* entry: classify */
/* switch with fallthrough, default in the middle falling into later cases, negative cases. */
int classify(int c, int flags)
{
    int r = 0;
    switch (c % 10) {
    case 0:
        r += 1;
    case 1:
        r += 10;
        break;
    default:
        r = -1;
    case 5:
        r += 100;
    case 6:
        r *= 2;
        break;
    case -3:
    case -4:
        r = 7;
        break;
    case 8:
        if (flags & 1) {
            r = 42;
            break;
        }
        r = 43;
    case 9:
        r += 1000;
    }
    switch (flags & 3) {
    case 1:
        r++;
    default:
        r += 2;
    case 2:
        r += 4;
    }
    return r;
}
