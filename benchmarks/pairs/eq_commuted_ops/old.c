/* Operands of commutative operators swapped and comparisons mirrored, in non-linear expressions. */
int f(int a, int b, unsigned c) {
  int x = (a & b) ^ (int)(c | 3u);
  int y = a * b;
  if (a < b) x += y;
  return x + (b == 3);
}
