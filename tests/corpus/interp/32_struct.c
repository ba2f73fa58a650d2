/* entry: rect_area */
/* A local struct with nested struct fields, an initializer, and a helper taking a pointer to it. */
struct point {
    int x, y;
};

struct rect {
    struct point lo, hi;
    int tag;
};

static int width(const struct rect *r)
{
    return r->hi.x - r->lo.x;
}

int rect_area(int x0, int y0, int x1, int y1)
{
    struct rect r;
    struct point origin = {3, -4};
    r.lo.x = x0 % 1000;
    r.lo.y = y0 % 1000;
    r.hi.x = x1 % 1000;
    r.hi.y = y1 % 1000;
    r.tag = 0;
    if (r.lo.x > r.hi.x) {
        int t = r.lo.x;
        r.lo.x = r.hi.x;
        r.hi.x = t;
        r.tag = 1;
    }
    int w = width(&r);
    int h = r.hi.y - r.lo.y;
    if (h < 0)
        h = -h;
    return w * h + r.tag + origin.x * origin.y;
}
