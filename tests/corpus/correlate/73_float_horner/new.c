/* entry: quad — polynomial evaluation changed to Horner form (rounding may differ) */
float quad(float x, float a)
{
    float b = 3.0f;
    float c = -0.5f;
    return (a * x + b) * x + c;
}
