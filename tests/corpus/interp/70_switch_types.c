/* entry: switch_types */
/* switch on char, unsigned char and long values, with cases that the converted value can or
   cannot reach, and default at the top. */
int switch_types(char c, unsigned char u, long l)
{
    int r = 0;
    switch (c) {
    default:
        r = 1;
        break;
    case -1:
        r = 2;
        break;
    case 'a':
    case 'b':
        r = 3;
        break;
    case 200:
        r = 4;
        break;
    }
    switch (u) {
    case 255:
        r += 10;
    case 0:
        r += 20;
        break;
    case -1:
        r += 40;
        break;
    }
    switch (l) {
    case 4294967296L:
        r += 100;
        break;
    case -1:
        r += 200;
        break;
    case 0x7fffffffffffffffL:
        r += 300;
        break;
    default:
        if (l < 0)
            r += 400;
    }
    return r;
}
