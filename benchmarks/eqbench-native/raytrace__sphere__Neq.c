/* dizy's witness for raytrace/sphere/Neq: s = all fields 0.0f, c = {0, 0, 0}, r = 1.0f. */
int main(void) {
    Surface s = {0};
    Vector3D c = {0.0f, 0.0f, 0.0f};
    Sphere o = SphereConstructor(s, c, 1.0f);
    printf("radius %a radSqr %a center %a %a %a\n", o.radius, o.radSqr, o.center.x, o.center.y, o.center.z);
    return 0;
}
