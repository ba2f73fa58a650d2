/*
 * digit_count - how many decimal digits n has.
 * The sign does not count.
 */

int digit_count(int n)
{
    long v = n;

    int d = 1;

    if (v < 0)
        v = -v;         /* work on the magnitude */

    while (v >= 10) {
        v /= 10;        /* drop one digit */
        d++;
    }

    return d;
}
