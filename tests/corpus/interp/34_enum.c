/* entry: enum_color */
/* Enum constants with explicit and implicit values (one negative), switch on an enum. */
enum color { RED, GREEN = 5, BLUE, ALPHA = -2, BLACK };

int enum_color(int c, int shade)
{
    enum color col = (enum color)(c & 7);
    int r;
    switch (col) {
    case RED:
        r = 1;
        break;
    case GREEN:
    case BLUE:
        r = shade > BLUE ? 2 : 3;
        break;
    default:
        r = BLACK - ALPHA;
        break;
    }
    if (col == ALPHA + 7)
        r += 100;
    return col * 10 + r + (int)sizeof(enum color) + (shade > BLUE);
}
