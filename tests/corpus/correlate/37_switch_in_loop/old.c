/* entry: interp_ops — one case of a switch inside a loop changed and a break removed (fall-through) */
int interp_ops(unsigned prog, int x)
{
    int acc = x % 1000;
    for (int pc = 0; pc < 8; pc++) {
        switch ((prog >> (4 * pc)) & 15u) {
        case 0:
            acc += 1;
            break;
        case 1:
            acc -= 3;
            break;
        case 2:
            acc = acc / 2;
            break;
        case 3:
            acc = -acc;
            break;
        case 4:
            pc = 8;
            break;
        default:
            acc ^= 5;
            break;
        }
    }
    return acc;
}
