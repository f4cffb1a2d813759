/* offsets_print.h: how `kfsck offsets` prints a row of the table or a
 * change of its history (kf_offsets_row): JSON lines, CSV, the text table
 * with the columns of kafka-consumer-groups.sh --describe, or the reset CSV
 * of kafka-consumer-groups.sh --reset-offsets --from-file with its stderr
 * notes; and the problems a row of the table is (out of range, expired,
 * committed inside damage). */
#ifndef KFSCK_CLI_OFFSETS_PRINT_H
#define KFSCK_CLI_OFFSETS_PRINT_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/out.h"
#include "kfsck/offsets_job.h"

enum { FMT_TABLE, FMT_JSON, FMT_CSV, FMT_RESET_CSV };

typedef struct offsets_printer {
    int format;
    bool history;       /* rows are changes (deleted, change_time, effective_offset) */
    bool group_column;  /* reset-csv: group,topic,partition,offset (not exactly one --group) */
    out *o;             /* stdout */
    report *rep;        /* the row problems */
    int gw, tw;         /* text table: the GROUP and TOPIC columns' widths */
} offsets_printer;

/* The text table's GROUP and TOPIC widths for rows (kafka-consumer-groups.sh:
 * max(15, the longest name), in terminal columns). */
void offsets_print_widths(offsets_printer *p, const kf_offsets_row *rows, size_t n);
/* The header line of the table or the CSV (none for JSON and reset-csv). */
void offsets_print_header(const offsets_printer *p);
/* One row (and, for a row of the table, its problems). */
void offsets_print_row(offsets_printer *p, const kf_offsets_row *r);

#endif
