/* entry: global_inits */
/* Global initializers that need constant folding with conversions: float/double constants,
   casts, narrowing, sizeof, designated array elements, a string in a char array, a global struct. */
static int gi = (int)2.9 + sizeof(long);
static _Bool gb = 0.5;
static _Bool gb2 = 256;
static double gd = 0.3333333333333333;
static float gf = 0.1;
static unsigned char gu = 300;
static long gl = -1u;
static signed char gc = 200;
static int arr[6] = {[2] = 5, 7, [0] = -1};
static char str[] = "hi!";
static struct {
    int a;
    double b;
} gs = {3, 2.5};
enum { N_ITEMS = 4 };
static int counts[N_ITEMS * 2];

double global_inits(int x)
{
    int k = x & 7;
    counts[k] += x & 0xff;
    gi += k;
    double r = gi + gb * 10 + gb2 * 20 + gd + gf + gu + gl + gc;
    for (int i = 0; i < 6; i++)
        r += arr[i] * (i + 1);
    r += str[k % 4] + sizeof(str) * 100 + gs.a * gs.b + counts[k] + sizeof(counts);
    return r;
}
