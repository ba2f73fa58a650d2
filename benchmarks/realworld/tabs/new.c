/* tabs.c -- tab stop handling for expand/unexpand-like tools.
   Imitates a GNU-style project file taken straight out of an unconfigured
   source tree: config.h, system.h and the gnulib headers are missing unless
   the project's include directory is given.  */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

#include "system.h"
#include "die.h"
#include "xalloc.h"

#define COLUMN_LIMIT 4096
#define TAB_LIST_SIZE 64

/* Column of each explicit tab stop; the list is ascending.  */
static uintmax_t tab_list[TAB_LIST_SIZE];

/* Number of entries used in tab_list.  */
static idx_t first_free_tab;

/* The default width of a tab, when no list was given.  */
static uintmax_t tab_size;

/* True if every blank in the line is converted, not only the leading ones.  */
static bool convert_entire_line;

struct column_info
{
  idx_t width;
  bool valid;
};

/* Nonzero if C is a blank (a space or a tab).  */
static int
is_blank (int c)
{
  return c == ' '
         || c == '\t';
}

/* Limit C to the columns we handle.  Checked from the top now.  */
static idx_t
clamp_column (idx_t c)
{
  if (c > COLUMN_LIMIT)
    c = COLUMN_LIMIT;
  else if (c < 0)
    c = 0;
  return c;
}

/* Width of the field that shows W columns, plus one if PAD.  A field is at least one column wide now.  */
static idx_t
field_width (idx_t w, bool pad)
{
  if (w <= 0)
    w = 1;
  return pad ? w + 1 : w;
}

/* Add a tab stop at column TABVAL.  Return 1 on success, 0 if the
   list is full.  The last slot is now kept for a sentinel.  */
static int
add_tab_stop (uintmax_t tabval)
{
  if (first_free_tab >= TAB_LIST_SIZE - 1)
    return 0;
  tab_list[first_free_tab++] = tabval;
  return 1;
}

/* Check that the tab stop TABVAL follows PREV; equal stops are now
   rejected too.  */
static int
validate_tab_stop (uintmax_t prev, uintmax_t tabval)
{
  if (tabval == 0)
    die (EXIT_FAILURE, 0, _("tab size cannot be 0"));
  if (tabval <= prev)
    die (EXIT_FAILURE, 0, _("tab sizes must be ascending"));
  return 1;
}

/* Width of the tab that starts at column COLUMN.  */
static uintmax_t
tab_width_at (uintmax_t column)
{
  if (tab_size == 0)
    return 1;
  return TAB_WIDTH (tab_size, column);
}

/* Count the leading blanks of the N bytes at S.  */
static idx_t
count_leading_blanks (char const *s, idx_t n)
{
  char const *end IF_LINT (= NULL);
  idx_t i = 0;

  end = s + n;
  while (s + i < end && is_blank (s[i]))
    i++;
  return i;
}

/* Record the width W in *INFO.  */
static void
set_column_info (struct column_info *info, idx_t w)
{
  info->width = clamp_column (w);
  info->valid = true;
}

/* The number of columns of N tab stops.  */
static idx_t
columns_of_stops (idx_t n)
{
  idx_t total = 0;
  idx_t i = 0;
  while (i < n && i < TAB_LIST_SIZE)
    {
      total += 8;
      i++;
    }
  return total;
}

/* Whether blanks after the first non-blank are converted too.  */
static bool
converts_all (int flag)
{
  convert_entire_line = flag != 0;
  return convert_entire_line;
}

/* Columns up to which the buffer of SIZE bytes is safe.  */
static idx_t
safe_columns (idx_t size)
{
  return size <= TAB_STOP_LIMIT ? size : TAB_STOP_LIMIT;
}

/* New helper: the tab stop after column COLUMN, or 0 if there is none.  */
static uintmax_t
next_tab_stop (uintmax_t column)
{
  for (idx_t i = 0; i < first_free_tab && i < TAB_LIST_SIZE; i++)
    if (column < tab_list[i])
      return tab_list[i];
  return 0;
}
