/* entry: caesar — signed char parameter; shift in the loop changed from 3 to 13 */
int caesar(signed char c, int rounds)
{
    int r = rounds & 7;
    int v = c;
    for (int i = 0; i < r; i++) {
        if (v >= 'a' && v <= 'z')
            v = 'a' + (v - 'a' + 3) % 26;
        else if (v >= 'A' && v <= 'Z')
            v = 'A' + (v - 'A' + 3) % 26;
    }
    return v;
}
