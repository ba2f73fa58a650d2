/* entry: ternary_nest */
/* Nested conditional expressions (median of three) and conditionals with side effects. */
int ternary_nest(int a, int b, int c)
{
    int n = 0;
    int x = a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b));
    int y = (a & 1) ? n++ : (n += 5);
    int z = n > 3 ? (c & 1 ? ++n : n--) : -n;
    return x / 2 + y + z * 7 + n;
}
