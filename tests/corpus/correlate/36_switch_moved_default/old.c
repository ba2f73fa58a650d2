/* entry: weight — default label moved to the top, changing what falls through */
int weight(int c)
{
    int w = 0;
    switch (c & 7) {
    case 1:
        w += 1;
    case 2:
        w += 2;
        break;
    default:
        w += 10;
    case 5:
        w += 5;
        break;
    }
    return w;
}
