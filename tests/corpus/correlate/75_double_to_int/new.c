/* entry: bucket — bucket width changed and the conversion now rounds instead of truncating */
int bucket(double x)
{
    if (!(x > -1000.0 && x < 1000.0))
        return -9999;
    double q = x / 8.0;
    int b = (int)(q < 0.0 ? q - 0.5 : q + 0.5);
    return b;
}
