/* entry: float_compound */
/* Compound assignment to float with double operands (computed in double, rounded once), float
   increments, int += double, float compared with double constants. */
double float_compound(float f, int i)
{
    float a = f;
    a += 0.1;
    a *= 1.0000001;
    a -= 1e-9;
    float b = f;
    b++;
    --b;
    int n = i % 1000;
    n += 0.5;
    n *= 1.5;
    int r = 0;
    if (a == f)
        r |= 1;
    if (b == f)
        r |= 2;
    if ((float)0.1 == 0.1)
        r |= 4;
    if (f * 0.1 == f * 0.1f)
        r |= 8;
    return (double)a * 4.0 + (double)b + n + r;
}
