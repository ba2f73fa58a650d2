/* Like eq_commuted_ops, but the operands of a non-commutative shift swapped as well. */
int f(int a, int b, unsigned c) {
  int x = (a & b) ^ (int)(c | 3u);
  int y = (a * b) >> (a & 7);
  if (a < b) x += y;
  return x + (b == 3);
}
