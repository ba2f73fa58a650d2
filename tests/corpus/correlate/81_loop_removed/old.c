/* entry: first_set — low nibble handled by straight-line code, the rest of the scan loop capped at bit 20 (wrong above it) */
int first_set(unsigned v)
{
    if (v == 0u)
        return -1;
    int i = 0;
    while (((v >> i) & 1u) == 0u)
        i++;
    return i;
}
