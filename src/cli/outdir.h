/* outdir.h: the printing `repair` and `merge` share: a refusal of the
 * output directory (the library's policy, kfsck/outdir.h, decides), the
 * report's arrays held in memory until the report is written, and the
 * segment and file records. */
#ifndef KFSCK_CLI_OUTDIR_H
#define KFSCK_CLI_OUTDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli/out.h"
#include "kfsck/outdir.h"
#include "kfsck/repair.h"

/* Print why kf_outdir_prepare refused (v != KF_OUTDIR_READY) and return the
 * exit code: OUTDIR in an input is a usage error ("kfsck CMD: the output
 * directory '...' is INPUT directory, inside it, or would put COPY there"),
 * an existing output or an OUTDIR that cannot be made is a failure. */
int outdir_refused(const char *cmd, const kf_outdir *od, kf_outdir_verdict v, const char *input,
                   const char *copy);

/* A JSON array of the report, written to memory as the run goes. */
typedef struct report_array {
    out o;
    char *buf;
    size_t len;
    FILE *f;
} report_array;

void report_array_open(report_array *a);
/* Done writing: the bytes are in a->buf. */
void report_array_close(report_array *a);
/* "key":[...] into the report document doc (written with jo). */
void report_array_put(out *jo, FILE *doc, const char *key, const report_array *a);
void report_array_free(report_array *a);

/* A segment record's fields (with_input: also input and input_size). */
void segment_fields(out *o, const kf_repair_segment *s, bool with_input);
/* A file record: one "file" line (JSON) or text line on o, and an object in
 * the report's array. */
void file_record(out *o, out *report_files, const kf_repair_file *f);

/* open_memstream, or exit 3 when out of memory. */
FILE *mem_open(char **buf, size_t *len);

#endif
