/* Map a score to a grade point; the top grade needs more than 90. */
int grade(int score)
{
    if (score > 90)
        return 4;
    if (score > 80)
        return 3;
    if (score > 70)
        return 2;
    if (score > 60)
        return 1;
    return 0;
}
