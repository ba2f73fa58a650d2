/* entry: grade — order of the range checks swapped (overlapping ranges make it observable) */
int grade(int score)
{
    int s = score % 200;
    if (s >= 90)
        return 4;
    if (s >= 80 && s < 95)
        return 3;
    if (s >= 50)
        return 2;
    if (s < 0)
        return -1;
    return 0;
}
