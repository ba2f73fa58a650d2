/* entry: find_pair — return from inside the inner loop added (first hit instead of count) */
int find_pair(int target, int n)
{
    int m = n & 15;
    int hits = 0;
    for (int i = 1; i <= m; i++) {
        for (int j = 1; j <= m; j++) {
            if (i * j == (target & 127)) {
                hits++;
                if (hits == 2)
                    return 100 * i + j;
            }
        }
    }
    return hits;
}
