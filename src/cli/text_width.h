/* text_width.h: the width a string takes on a terminal (UTF-8: wide East
 * Asian characters and emoji take two columns, combining marks none), so
 * that the text tables of `offsets` and `groups` stay aligned whatever the
 * names hold. */
#ifndef KFSCK_CLI_TEXT_WIDTH_H
#define KFSCK_CLI_TEXT_WIDTH_H

#include <stdio.h>

/* Columns s takes; a byte that is not valid UTF-8 counts as one. */
int text_width(const char *s);
/* Columns s takes as it is shown, escaped (escape.h). */
int text_width_shown(const char *s);
/* s escaped (escape.h), then spaces up to width columns of what is shown
 * (none when it is wider). */
void fput_padded(FILE *f, const char *s, int width);

#endif
