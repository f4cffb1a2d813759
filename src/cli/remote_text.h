/* remote_text.h: the text output of `kfsck remote` (remote_text.c). */
#ifndef KFSCK_CLI_REMOTE_TEXT_H
#define KFSCK_CLI_REMOTE_TEXT_H

#include <stdbool.h>
#include <stdio.h>

#include "kfsck/kfsck.h"

/* A name from the data, bytes that are no printable text as \xNN. */
void remote_put_name(FILE *f, const char *s);
/* One partition: the verdict line, the figures, the findings. */
void remote_text_partition(FILE *f, const kf_remote_partition *p, bool have_storage);
/* The run's summary lines. */
void remote_text_summary(FILE *f, const kf_remote_totals *t);

#endif
