
int f(int a)
{
    int arr[4] = {3, 72, 8, 82};
    return arr[3];
}
