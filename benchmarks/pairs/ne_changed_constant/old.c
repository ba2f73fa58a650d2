/* Shipping fee: a flat 5 up to a weight threshold of 20, then 2 per extra unit. */
long shipping(int weight)
{
    if (weight <= 20)
        return 5;
    return 5 + 2 * ((long)weight - 20);
}
