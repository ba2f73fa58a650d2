/* dizy's witness for airy/chebev_c1d/Neq: a = 1.0, b = 0.0, m = 0, x = 0.0 (the global table
   c1_d keeps its initializer in both versions). */
int main(void) {
    printf("%a\n", chebev_c1d(1.0, 0.0, 0, 0.0));
    return 0;
}
