
int f(int a)
{
    int arr[4] = {3, 72, 63, 82};
    int i0 = 0;
    for (i0 = 0; i0 < 4; i0++) {
        arr[i0] += 1;
    }
    return arr[3];
}
