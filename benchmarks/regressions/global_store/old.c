int g;

int f(int a)
{
    int i0 = 0;
    for (i0 = 0; i0 < (a < 4 ? a : 4); i0++) {
        g += 2;
    }
    return a;
}
