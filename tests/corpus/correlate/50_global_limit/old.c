/* entry: accumulate — global limit's initializer raised from 100 to 120; global total read and modified in the loop */
static int total = 5;
static int limit = 100;

int accumulate(int x, int n)
{
    int m = n & 31;
    for (int i = 0; i < m; i++) {
        total += x & 7;
        if (total > limit) {
            total = limit;
            break;
        }
    }
    return total;
}
