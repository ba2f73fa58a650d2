int g;
static void h(int x) { g = x + 1; }
int f(int a) { h(a); return 0; }
