/* entry: fletcher */
/* Fletcher-16 checksum over the first len bytes of a word, via a local unsigned char array. */
unsigned fletcher(unsigned long data, unsigned char len)
{
    unsigned char bytes[8];
    for (int i = 0; i < 8; i++)
        bytes[i] = (unsigned char)(data >> (8 * i));
    unsigned sum1 = 0xff, sum2 = 0xff;
    int n = len % 9;
    for (int i = 0; i < n; i++) {
        sum1 = (sum1 + bytes[i]) % 255;
        sum2 = (sum2 + sum1) % 255;
    }
    return (sum2 << 8) | sum1;
}
