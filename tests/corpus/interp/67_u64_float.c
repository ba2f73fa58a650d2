/* entry: u64_float */
/* Conversions at the top of the 64-bit range: unsigned long <-> double and float, with the range
   checks C requires before converting back. */
double u64_float(unsigned long u, double d)
{
    double du = (double)u;
    float fu = (float)u;
    unsigned long back = 0;
    if (du < 18446744073709551616.0)
        back = (unsigned long)du;
    unsigned long fromd = 0;
    if (d > -1.0 && d < 18446744073709551616.0)
        fromd = (unsigned long)d;
    long sfromd = 0;
    if (d > -9223372036854775808.0 - 1.0 && d < 9223372036854775808.0)
        sfromd = (long)d;
    int r = 0;
    if (back == u)
        r |= 1;
    if ((double)fu == du)
        r |= 2;
    if (fromd > 9223372036854775807ul)
        r |= 4;
    return (double)(back - u) + (double)(fromd % 1000003ul) + (double)(sfromd % 1000) + fu * 0.5 + r;
}
