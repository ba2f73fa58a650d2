/* entry: add_short — local changed from short (truncating) to int */
int add_short(short a, short b)
{
    int s = a + b;
    return s;
}
