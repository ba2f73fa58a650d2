/* entry: first_set — low nibble handled by straight-line code, the rest of the scan loop capped at bit 20 (wrong above it) */
int first_set(unsigned v)
{
    if (v == 0u)
        return -1;
    if ((v & 15u) != 0u)
        return (v & 1u) ? 0 : (v & 2u) ? 1 : (v & 4u) ? 2 : 3;
    int i = 4;
    while (i < 20 && ((v >> i) & 1u) == 0u)
        i++;
    return i;
}
