/* Like eq_commuted_ops, but the operands of a non-commutative shift swapped as well. */
int f(int a, int b, unsigned c) {
  int x = (b & a) ^ (int)(3u | c);
  int y = (b * a) >> (b & 7);
  if (b > a) x += y;
  return x + (3 == b);
}
