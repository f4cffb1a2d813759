/* compaction_text.h: `kfsck compaction`'s text output of one partition
 * (compaction_text.c); cmd_compaction.c parses, runs the job and prints the
 * rest. */
#ifndef KFSCK_CLI_COMPACTION_TEXT_H
#define KFSCK_CLI_COMPACTION_TEXT_H

#include <stdio.h>

#include "kfsck/compaction.h"

/* A compacted partition's verdict line and figures, then an empty line. */
void compaction_print_text(FILE *f, const kf_compaction_result *r);

#endif
