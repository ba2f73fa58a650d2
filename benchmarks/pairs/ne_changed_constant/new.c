/* Shipping fee: a flat 5 up to a weight threshold of 25, then 2 per extra unit. */
long shipping(int weight)
{
    if (weight <= 25)
        return 5;
    return 5 + 2 * ((long)weight - 25);
}
