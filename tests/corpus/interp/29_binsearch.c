/* entry: bsearch_local */
/* Binary search on a sorted local array; returns the index or -(insertion point + 1). */
int bsearch_local(int key, int shift)
{
    int a[20];
    int step = (shift & 7) + 1;
    for (int i = 0; i < 20; i++)
        a[i] = i * step * 3 - 25;
    int lo = 0, hi = 19;
    key %= 100;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (a[mid] == key)
            return mid;
        if (a[mid] < key)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -(lo + 1);
}
