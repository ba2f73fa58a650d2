/* entry: sizeof_local_in_array_size */
/* An array size that names a local only through sizeof is a constant, not a variable-length
   array (dietlibc's strlen: `char exc[sizeof(word) == 8]`); reading the local there would not be. */
int sizeof_local_in_array_size(int x, int y)
{
    long w = x;
    char probe[sizeof(w) == 8];
    short s = (short)y;
    int table[sizeof s + sizeof(w) / 4];
    (void)probe;
    for (unsigned i = 0; i < sizeof table / sizeof table[0]; i++)
        table[i] = (int)i * (x % 1000);
    return (int)sizeof probe + (int)(sizeof table / sizeof table[0]) + table[3] - s % 100;
}
