/* rebuild_cli.h: the one command-line skeleton of `repair` and `merge`,
 * which write a rebuilt copy into OUTDIR: their shared options (-o OUTDIR,
 * --force, --max-batch-bytes, --json, and repair's --salvage), the output
 * directory's refusals (the library's policy, kfsck/outdir.h, decides), the
 * run (the job into a stage, the report -- repair.json, merge.json -- built
 * in memory as it goes and written at its end, then the copy moved into
 * place), the segment, file and problem records both print, and the
 * printing of a failed job. cmd_repair.c and cmd_merge.c give what is
 * theirs: their inputs, their job and records, the report's head and the
 * summary. */
#ifndef KFSCK_CLI_REBUILD_CLI_H
#define KFSCK_CLI_REBUILD_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/out.h"
#include "kfsck/outdir.h"
#include "kfsck/repair.h"

/* JSON written to memory: one of the report's arrays (its objects), or
 * the report itself. */
typedef struct mem_json {
    out o;
    char *buf;
    size_t len;
    FILE *f;
} mem_json;

/* The report's arrays of records the skeleton writes itself, after the
 * command's own (rebuild_cmd.keys): the segments written and the files. */
#define REBUILD_OWN_ARRAYS 2
#define REBUILD_MAX_ARRAYS 8

typedef struct rebuild_cmd rebuild_cmd;

/* One run of a command. */
typedef struct rebuild_cli {
    const rebuild_cmd *cmd;
    bool json, force, salvage;
    const char *outdir;
    uint64_t max_batch;
    char *const *paths;           /* the inputs: the segment or partition dir, or the copies */
    int npaths;
    bool partition;               /* the output is a partition dir (else one segment) */
    out *o;                       /* stdout: JSON lines or text */
    mem_json arr[REBUILD_MAX_ARRAYS]; /* the report's arrays: the command's, then segments and files */
    void *job;                    /* the command's own (its job's result) */
} rebuild_cli;

struct rebuild_cmd {
    const char *name;             /* "repair" */
    const char *report_name;      /* "repair.json" */
    void (*usage)(FILE *f);
    bool salvage;                 /* takes --salvage */
    bool segment_input;           /* a segment record names the segment it was rebuilt from */
    const char *input_words, *copy_words; /* the refusal of an OUTDIR in an input: "the input's", "the copy" */
    const char *const *keys;      /* the report's own arrays, before "segments" and "files" */
    size_t nkeys;
    /* After the options: the PATHs checked (how many, what they are;
     * c->partition set). -1 to go on, else the exit code. */
    int (*inputs)(rebuild_cli *c);
    /* The job into od (its stage), its records through the callbacks
     * below and its own with c as ctx: a kf_err. */
    int (*run)(rebuild_cli *c, kf_outdir *od);
    /* The report's fields before its arrays. */
    void (*report_head)(rebuild_cli *c, const kf_outdir *od, out *doc);
    /* The summary line (JSON or text) once the report is written; the exit code. */
    int (*summary)(rebuild_cli *c, const kf_outdir *od);
};

/* The whole command: options, inputs, the output directory, the run; job
 * is the command's own (its job's result: rebuild_cli.job). The exit code. */
int rebuild_main(int argc, char **argv, const rebuild_cmd *cmd, void *job);

/* The records every job gives (ctx: the rebuild_cli): a segment written, a
 * file copied, kept or left out, and a problem (an input file that cannot
 * be read: the one-line error on stderr, and a problem line with --json). */
void rebuild_on_segment(void *ctx, const kf_repair_segment *s);
void rebuild_on_file(void *ctx, const kf_repair_file *f);
void rebuild_on_problem(void *ctx, const kf_problem *p);

/* A record of the command's own: with --json a JSON line of type `type`,
 * and an object in the report's array `arr`, both of fields(c, o, item). */
typedef void (*rebuild_fields_fn)(const rebuild_cli *c, out *o, const void *item);
void rebuild_record(rebuild_cli *c, size_t arr, const char *type, rebuild_fields_fn fields, const void *item);

/* "kfsck CMD: WHAT 'ARG'" and the usage on stderr: EXIT_USAGE. */
int rebuild_usage_error(const rebuild_cli *c, const char *what, const char *arg);

#endif
