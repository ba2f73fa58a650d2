/* coreutils pr.c, char_to_clump as of 6.11: backspaces no longer move the column
   below 0 (numeric re-creation, see old.c). */

/* Stand-ins for pr.c's option state. A call consumes one input character and
   advances the logical column `input_position`. */
int input_position = 0;
int chars_per_input_tab = 8;
int untabify_input = 0;
char input_tab_char = '\t';
int use_esc_sequence = 0;
int use_cntrl_prefix = 0;

/* Columns left to the next tab stop when tab stops are c_ apart. */
#define TAB_WIDTH(c_, h_) ((c_) - ((h_) % (c_)))

int char_to_clump(char c)
{
    unsigned char uc = c;
    int width;      /* how far the column moves */
    int chars;      /* how many bytes the clump holds */
    int chars_per_c = 8;

    if (c == input_tab_char)
        chars_per_c = chars_per_input_tab;

    if (c == input_tab_char || c == '\t') {
        width = TAB_WIDTH(chars_per_c, input_position);
        if (untabify_input)
            chars = width;          /* the tab becomes `width` blanks */
        else
            chars = 1;              /* the tab is kept as is */
    } else if (uc < 32 || uc >= 127) {
        /* not printable in the C locale */
        if (use_esc_sequence) {
            width = chars = 4;      /* backslash and three octal digits */
        } else if (use_cntrl_prefix) {
            if (uc < 0200)
                width = chars = 2;  /* caret notation */
            else
                width = chars = 4;
        } else if (c == '\b') {
            chars = 1;
            width = -1;             /* backspace moves one column left */
        } else {
            chars = 1;
            width = 0;
        }
    } else {
        width = chars = 1;
    }

    /* A run of backspaces must stop at column 0, never go below it. */
    if (width < 0 && input_position == 0) {
        chars = 0;
        input_position = 0;
    } else if (width < 0 && input_position <= -width) {
        input_position = 0;
    } else {
        input_position += width;
    }
    return chars;
}
