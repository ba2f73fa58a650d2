/* entry: fact — recursive entry function; base case changed from n <= 1 to n <= 0 and the modulus changed */
int fact(int n)
{
    int k = n & 63;
    if (k <= 1)
        return 1;
    return (int)((long)k * fact(k - 1) % 10007);
}
