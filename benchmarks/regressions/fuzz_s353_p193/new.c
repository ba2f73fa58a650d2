#include <stddef.h>
static int h0(int p0, int p1);

long g0 = 100;
static double g1 = 1e-5;
static int g2 = 127;

static int h0(int p0, int p1)
{
    g2 = 10;
    if ((((((135 % 10) & 255) << 6) >= 100) || (g0 <= 16))) {
        p1 ^= ((8 * 2) % (p1 >> 3));
    } else {
        p1 += ((g0 * 10) | (255 >> 6));
        p0 = p1;
    }
    return (((char)(g0)) + (g2 ^ 16));
}

int f(unsigned a, char *buf, size_t n)
{
    int x = 16;
    int i0 = 0;
    if ((g2 > 0)) {
        return ((g2 - g0) + g2);
    }
    g1 = (-(g1) - (g1 - g1));
    for (i0 = 0; i0 < (n < 0 ? n : 0); i0++) {
        buf[i0] ^= ((unsigned char)(((char)(n))));
        if ((buf[i0] <= (-1))) {
            x += buf[i0];
        }
    }
    g0 += (x | x);
    if ((n > 1)) {
        x += buf[1];
    }
    return (((((a | x) ^ x) + n) - g2) ^ ((int)((((g1 > (-1000.0)) && (g1 < 1000.0)) ? g1 : 0.0))));
}
