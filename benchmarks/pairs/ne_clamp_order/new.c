/* Clamp written the other way round: upper bound first. Same as old.c when
   lo <= hi, but an empty range (lo > hi) now favours lo. */
int clamp(int x, int lo, int hi)
{
    return x > hi ? hi : (x < lo ? lo : x);
}
