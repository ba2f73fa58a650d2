/* entry: vm */
/* A tiny bytecode interpreter: switch inside a while loop, break leaves the switch, continue the
   loop, return from inside the switch, fallthrough between opcodes. */
int vm(unsigned long code, int input)
{
    int acc = input % 1000, pc = 0, steps = 0;
    int reg = 0;
    while (pc < 16 && steps < 64) {
        unsigned op = (code >> (pc * 4)) & 15u;
        steps++;
        switch (op) {
        case 0:
            acc++;
            break;
        case 1:
            acc--;
            break;
        case 2:
            acc *= 2;
            break;
        case 3:
            reg = acc;
            break;
        case 4:
            acc += reg;
            break;
        case 5:
            if (acc < 0) {
                pc += 2;
                continue;
            }
            break;
        case 6:
            pc = (int)(acc & 7);
            continue;
        case 7:
            return acc;
        case 8:
        case 9:
            acc ^= (int)op;
            /* fallthrough */
        case 10:
            acc -= 3;
            break;
        default:
            reg--;
            break;
        }
        acc %= 100000;
        pc++;
    }
    return acc * 10 + (steps & 7);
}
