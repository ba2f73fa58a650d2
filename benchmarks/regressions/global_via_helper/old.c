int g;
static void h(int x) { g = x; }
int f(int a) { h(a); return 0; }
