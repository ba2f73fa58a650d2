int f(int a)
{
    int x = 16;
    a = a + 1;
    return (x | (-1)) | x;
}
