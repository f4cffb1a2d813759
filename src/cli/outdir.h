/* outdir.h: what `repair` and `merge` share when they write an output
 * directory: the set of file names written (to tell stale files from new
 * ones), the report's segment and file records, and small path helpers. */
#ifndef KFSCK_CLI_OUTDIR_H
#define KFSCK_CLI_OUTDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/out.h"
#include "kfsck/repair.h"

typedef struct name_set {
    char **v;
    size_t n, cap;
} name_set;

/* Add the base name of path (NULL is ignored). */
void name_set_add(name_set *s, const char *path);
/* Add a written segment: its .log and the .index/.timeindex beside it. */
void name_set_add_segment(name_set *s, const char *log_path);
bool name_set_has(const name_set *s, const char *name);
void name_set_free(name_set *s);

/* --force over an earlier output: remove the Kafka files in dir that this
 * run did not write (other files are left alone). Returns how many went. */
uint64_t remove_stale(const char *dir, const name_set *written);

/* A segment record's fields (with_input: also input and input_size). */
void segment_fields(out *o, const kf_repair_segment *s, bool with_input);
/* A file record: one "file" line (JSON) or text line on o, and an object in
 * the report's array. */
void file_record(out *o, out *report_files, const kf_repair_file *f);

/* The last path component without trailing slashes, malloc'd. */
char *clean_base(const char *path);
/* open_memstream, or exit 3 when out of memory. */
FILE *mem_open(char **buf, size_t *len);

#endif
