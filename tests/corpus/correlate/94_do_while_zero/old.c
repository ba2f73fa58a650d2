/* entry: setup — do { ... } while (0) error-handling block gains a third check */
int setup(int a, int b)
{
    int rc = 0;
    int x = a & 0xfff, y = b & 0xfff;
    do {
        if (x < 16) {
            rc = -1;
            break;
        }
        if (y > 4000) {
            rc = -2;
            break;
        }
        rc = x + y;
    } while (0);
    return rc;
}
