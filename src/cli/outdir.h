/* outdir.h: the printing `repair` and `merge` share: a refusal of the
 * output directory (the library's policy, kfsck/outdir.h, decides), the
 * report (repair.json, merge.json) built in memory as the run goes and
 * written at its end, a failure of the job, and the segment and file
 * records. */
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

/* JSON written to memory: one of the report's arrays (its objects), or
 * the report itself. */
typedef struct mem_json {
    out o;
    char *buf;
    size_t len;
    FILE *f;
} mem_json;

/* Open, close (the bytes are then in buf) and free n arrays. */
void report_arrays_open(mem_json *a, size_t n);
void report_arrays_close(mem_json *a, size_t n);
void report_arrays_free(mem_json *a, size_t n);

/* Start the report: {"command":"<command>" (add fields with doc->o). */
void report_begin(mem_json *doc, const char *command);
/* "keys[i]":[<a[i]>] for each of the n closed arrays. */
void report_put_arrays(mem_json *doc, const char *const *keys, const mem_json *a, size_t n);
/* Close the report and write it (kf_outdir_write_report), free it, then
 * move the run's output into place (kf_outdir_commit): EXIT_CLEAN, or
 * EXIT_FAIL after "kfsck: <path>: <what failed>". */
int report_write(mem_json *doc, kf_outdir *od);

/* The job failed (the last error's path, message and errno): prints
 * "kfsck: <path>: <what>: <strerror>" (without ": <strerror>" when errno is
 * 0) after what stdout holds; EXIT_FAIL. */
int job_failed(void);

/* A segment record's fields (with_input: also input and input_size). */
void segment_fields(out *o, const kf_repair_segment *s, bool with_input);
/* A file record: one "file" line (JSON) or text line on o, and an object in
 * the report's array. */
void file_record(out *o, out *report_files, const kf_repair_file *f);

/* open_memstream, or exit 3 when out of memory. */
FILE *mem_open(char **buf, size_t *len);

#endif
