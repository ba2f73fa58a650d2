/* entry: acc_fields */
/* Local structs used field by field (scalarized by the GCL stage): partial initializers zero the
   rest, a struct declared in a loop is zeroed on every iteration, char fields truncate, an
   unsigned field wraps, and a pointer field is compared with null. */
struct acc {
    int sum;
    unsigned char low;
    unsigned wrap;
    const int *seen;
    double scale;
};

int acc_fields(int n, int k)
{
    struct acc a = {k % 100};
    int total = 0;
    if (n < 0)
        n = -n;
    n %= 20;
    for (int i = 0; i < n; i++) {
        struct acc step = {0};
        step.sum = a.sum + i;
        step.low = (unsigned char)(step.sum * 37);
        step.wrap = (unsigned)step.sum * 4000000000u;
        a.sum += step.low;
        a.wrap ^= step.wrap;
        if (step.seen == 0)
            total += step.low % 7;
        a.scale = a.scale + 0.5;
    }
    return total + a.sum + (int)(a.wrap % 1000u) + (int)a.scale + (a.seen == 0);
}
