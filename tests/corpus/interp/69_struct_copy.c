/* entry: struct_copy */
/* Struct assignment (copy) and struct initializers with designators, a struct returned by value
   from a helper, an array inside a struct. */
struct vec {
    int x, y;
    short tag[3];
};

static struct vec scaled(struct vec v, int k)
{
    v.x *= k;
    v.y *= k;
    return v;
}

int struct_copy(int a, int b)
{
    struct vec u = {.y = b % 1000, .x = a % 1000, .tag = {1, 2}};
    struct vec w = u;
    w.x += 1;
    w.tag[2] = 9;
    struct vec z = scaled(w, 3);
    u = z;
    return u.x * 10000 + u.y + w.x + u.tag[0] + u.tag[1] * 10 + u.tag[2] * 100 + w.tag[2];
}
