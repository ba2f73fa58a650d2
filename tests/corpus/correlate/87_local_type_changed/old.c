/* entry: average — local accumulator changed from int to double (the division no longer truncates) */
int average(int a, int b, int c)
{
    int sum = (a % 10000) + (b % 10000) + (c % 10000);
    int avg = sum / 3;
    return avg;
}
