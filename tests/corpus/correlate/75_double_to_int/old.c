/* entry: bucket — bucket width changed and the conversion now rounds instead of truncating */
int bucket(double x)
{
    if (!(x > -1000.0 && x < 1000.0))
        return -9999;
    int b = (int)(x / 10.0);
    return b;
}
