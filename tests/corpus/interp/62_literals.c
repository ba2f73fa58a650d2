/* entry: literal_types */
/* Integer literal types (0xffffffff is unsigned, 2147483648 is long), octal, character escapes
   ('\377' is -1 with signed char), suffixes, and how they steer comparisons. */
long literal_types(int x)
{
    long r = 0;
    if (x < 0xffffffff)
        r |= 1;
    if (x < 2147483648)
        r |= 2;
    if (x > -2147483648)
        r |= 4;
    if (x < 4294967295u)
        r |= 8;
    if (x == 017)
        r |= 16;
    if ('\377' < 0)
        r |= 32;
    if (x > 0x7fffffffL)
        r |= 64;
    r += '\n' * 1000 + '\x41' * 100000 + '\0' + 'a';
    r += sizeof(0xffffffff) * 10000000 + sizeof(2147483648) * 100000000L + sizeof('a') * 1000000000L;
    r += 10ul + 077 + 0x10L + 'A' * 3LL;
    return r;
}
