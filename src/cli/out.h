/* out.h: the CLI's output writers. JSON lines (one object per line, each with
 * a "type") are built by the library's writer on o->w (kf_jsonl,
 * kfsck/sys/json_lines.h), field by field or with the line builders a
 * command's job declares; text
 * output is printed by each command with out_text. Problems go through
 * report_problem in both modes. */
#ifndef KFSCK_CLI_OUT_H
#define KFSCK_CLI_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/escape.h"
#include "kfsck/kfsck.h"
#include "kfsck/sys/json_lines.h"

typedef struct out {
    FILE *f;
    bool json;
    bool show_secrets;  /* print values marked secret (dtree_json.c); else "<redacted>" */
    kf_jsonl w;         /* the JSON being built: a line goes out whole; JSON outside a line value by value */
} out;

void out_init(out *o, FILE *f, bool json);

/* A JSON line is written with the library's writer itself, on o->w:
 * kf_jsonl_begin(&o->w, "batch"), kf_jsonl_fields(&o->w, KF_JI("x", 1), ...),
 * kf_jsonl_end(&o->w) (kfsck/sys/json_lines.h). The writers below are the
 * CLI's own additions to it. */

/* n bytes that are JSON already (checked), as the value of key. */
void out_json(out *o, const char *key, const char *json, size_t n);
/* Bytes as key_b64 plus key (text) when valid UTF-8: out_bytes(o, "key", p, n). */
void out_bytes(out *o, const char *name, const uint8_t *p, int64_t n);

/* A size in bytes in binary units: "512 B", "25.0 MiB" (stats --sink, compaction, predict). */
void fmt_bytes(uint64_t n, char *buf, size_t cap);
/* A duration in ms in the largest unit that divides it exactly, as the
 * duration options are written: "1w", "3d", "1h", "10m", "30s", "1500ms". */
void fmt_duration_unit(int64_t ms, char *buf, size_t n);
/* The name a partition goes by in messages: "<topic>-<N>", else the path of
 * its first copy. */
void partition_label(const kf_partition *p, char *buf, size_t n);

/* Free text (text mode): its %s and %c arguments escaped (escape.h). */
void out_text(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Text already escaped (escape.h: a shell_arg), written as it is. */
void out_raw(out *o, const char *s);
/* before (the program's text), then arg as one shell word (escape.h: tshell). */
void out_shell(out *o, const char *before, const char *arg);

/* Counts problems of one run and prints them (JSON line or text line). */
typedef struct report {
    out *o;
    const char *file;   /* the file problems are about, as the user would open it */
    uint64_t errors;
    uint64_t warnings;
} report;

void report_problem(void *ctx, const kf_problem *p); /* a kf_problem_fn; ctx is a report */
/* report_problem with fields of the problem's own after the usual ones in
 * JSON (extra prints them into o; text shows the message only). */
void report_problem_with(report *r, const kf_problem *p, void (*extra)(out *o, void *ctx), void *ectx);

/* The problems_not_listed problem of every file whose problems past the
 * first KF_PROBLEMS_LISTED_MAX were counted but not printed (a file's is
 * printed anyway when the next problem is another file's). finish_stdout
 * calls it. */
void report_flush_hidden(void);

/* A kf_segment_scan_opts progress_fn: "<file> NN%" on stderr when it is a terminal
 * (ctx is the file name); progress_done clears the line. */
void progress_show(void *ctx, uint64_t position, uint64_t size);
void progress_done(void);

/* The exit status after flushing stdout: status, or EXIT_FAIL (3, "an output
 * that cannot be written") after "kfsck: <stdout>: cannot write output" on
 * stderr when any write to stdout failed (a full disk, a closed descriptor).
 * main() passes every command's status through it. */
int finish_stdout(int status);

/* "kfsck: <path>: <what>" on stderr. */
void cli_error(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
