/* entry: counter_global */
/* Globals with initializers read and modified by the function (and by a helper): an LCG state,
   a counter, a const table. */
int counter = 5;
static unsigned long seed = 12345;
static const int limits[3] = {10, 20, 30};

static int next_rand(void)
{
    seed = seed * 6364136223846793005ul + 1442695040888963407ul;
    return (int)(seed >> 33);
}

int counter_global(int x)
{
    counter += x & 7;
    int r = next_rand() % 100;
    if (counter > limits[x & 1])
        counter = 0;
    for (int i = 0; i < (x & 3); i++)
        r += next_rand() & 15;
    return r + counter * 1000 + limits[2];
}
