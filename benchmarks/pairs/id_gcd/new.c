/* Greatest common divisor by repeated subtraction; non-positive inputs give 0
   and inputs are capped at 1000 so the loop stays short. */
int gcd(int a, int b)
{
    if (a <= 0 || b <= 0)
        return 0;
    if (a > 1000)
        a = 1000;
    if (b > 1000)
        b = 1000;
    while (a != b) {
        if (a > b)
            a -= b;
        else
            b -= a;
    }
    return a;
}
