/* entry: bump — global counter changed from int to long and the increment gains 1001 (it would overflow an int) */
static long counter = 2147483000;

int bump(int x)
{
    counter += (x & 1) * 7 + 1001;
    long c = counter;
    return (int)(c % 1000);
}
