/* entry: hash8 — unsigned char state replaced by int masked with 0xff (same semantics) */
int hash8(unsigned v)
{
    unsigned char h = 7;
    for (int i = 0; i < 4; i++)
        h = h * 33 + ((v >> (8 * i)) & 0xffu);
    return h;
}
