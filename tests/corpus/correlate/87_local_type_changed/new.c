/* entry: average — local accumulator changed from int to double (the division no longer truncates) */
int average(int a, int b, int c)
{
    double sum = (a % 10000) + (b % 10000) + (c % 10000);
    int avg = (int)(sum / 3.0 + (sum < 0 ? -0.5 : 0.5));
    return avg;
}
