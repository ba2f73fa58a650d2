/* Operands of commutative operators swapped and comparisons mirrored, in non-linear expressions. */
int f(int a, int b, unsigned c) {
  int x = (b & a) ^ (int)(3u | c);
  int y = b * a;
  if (b > a) x += y;
  return x + (3 == b);
}
