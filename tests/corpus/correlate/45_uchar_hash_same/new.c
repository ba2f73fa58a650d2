/* entry: hash8 — unsigned char state replaced by int masked with 0xff (same semantics) */
int hash8(unsigned v)
{
    int h = 7;
    for (int i = 0; i < 4; i++)
        h = (h * 33 + (int)((v >> (8 * i)) & 0xffu)) & 0xff;
    return h;
}
