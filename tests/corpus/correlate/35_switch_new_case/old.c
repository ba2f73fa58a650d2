/* entry: op — new case 4 added to the switch */
int op(int code, int a)
{
    int x = a % 10000;
    int r;
    switch (code & 7) {
    case 0:
        r = x;
        break;
    case 1:
        r = x + 1;
        break;
    case 2:
        r = x * 2;
        break;
    case 3:
        r = -x;
        break;
    default:
        r = 0;
        break;
    }
    return r;
}
