/* dizy's witness for raytrace/surface/Neq: every argument 0.0f. */
int main(void) {
    Surface o = SurfaceConstructor(0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f);
    printf("%a %a %a %a %a %a %a %a %a %a\n", o.ir, o.ig, o.ib, o.ka, o.kd, o.ks, o.ns, o.kt, o.kr, o.nt);
    return 0;
}
