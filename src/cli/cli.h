/* cli.h: shared pieces of the command-line tool: the command table, option
 * parsing helpers and the exit codes. */
#ifndef KFSCK_CLI_H
#define KFSCK_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/out.h"
#include "kfsck/kfsck.h"

/* Exit codes (kfsck(1), EXIT STATUS). */
enum { EXIT_CLEAN = 0, EXIT_DAMAGE = 1, EXIT_USAGE = 2, EXIT_FAIL = 3 };

int cmd_dump(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_offsets(int argc, char **argv);
int cmd_groups(int argc, char **argv);
int cmd_repair(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_scan(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_txns(int argc, char **argv);
int cmd_metadata(int argc, char **argv);
int cmd_compaction(int argc, char **argv);
int cmd_replicas(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_remote(int argc, char **argv);
int cmd_report(int argc, char **argv);

/* Parse a size like 1048576, 64K, 128M, 1G. Returns 0 on success. */
int parse_size(const char *s, uint64_t *result);
/* A whole decimal number >= min (digits only: no sign, no suffix) into *v.
 * Returns 0 on success. */
int parse_number(const char *s, int64_t min, int64_t *v);
/* A positive size option value: 0, or -1 after printing
 * "kfsck CMD: OPT needs a positive size ..." to stderr. */
int opt_positive_size(const char *cmd, const char *opt, const char *arg, uint64_t *v);
/* Prints "kfsck CMD: WHAT 'ARG'" (ARG may be NULL) and the usage to stderr;
 * returns EXIT_USAGE. */
int opt_usage_error(const char *cmd, const char *what, const char *arg, void (*usage)(FILE *));

/* A time option (--as-of, --from-time, --now): epoch milliseconds or ISO
 * 8601 (kf_timestamp_parse) into *v: 0, or EXIT_USAGE after printing why
 * and the usage to stderr. */
int opt_time(const char *cmd, const char *opt, const char *arg, int64_t *v, void (*usage)(FILE *));
/* The reader's thread count and read size from KFSCK_THREADS /
 * KFSCK_CHUNK_BYTES when set (tests, measurements); unchanged otherwise. */
void reader_tuning(unsigned *threads, size_t *chunk_bytes);
/* What an option's argument is, and where opt_parse puts it. */
typedef enum opt_kind {
    OPT_FLAG,     /* no argument: *(bool *)to = true */
    OPT_STRING,   /* *(const char **)to = the argument (an empty one refused when refusal is set) */
    OPT_SIZE,     /* a positive size (4096, 64K, 128M): *(uint64_t *)to */
    OPT_NUMBER,   /* digits only, from min to max: *(int64_t *)to */
    OPT_DURATION, /* a positive duration (500ms, 10s, 10m, 1h, 1d): *(int64_t *)to, in ms */
    OPT_TIME,     /* epoch ms or ISO 8601 (opt_time): *(int64_t *)to */
    OPT_CHOICE,   /* one of choices: *(int *)to = its index */
    OPT_PARSE,    /* parse(arg, to): 0, or -1 to refuse it */
    OPT_LIST,     /* given again and again: appended to *(opt_list *)to */
} opt_kind;

/* The arguments of an option given several times (--group A --group B):
 * v has room for argc of them. */
typedef struct opt_list {
    const char **v;
    size_t n;
} opt_list;

/* One option of a command: a table of them, ended by one with no name, is
 * what opt_parse reads (git's parse-options, in small). */
typedef struct opt_spec {
    const char *name;           /* the long name, without the dashes */
    char letter;                /* its short form, or 0 */
    opt_kind kind;
    void *to;                   /* where the value goes (see opt_kind) */
    /* The words of a refused argument, said as "kfsck CMD: REFUSAL 'ARG'"
     * with the usage (OPT_SIZE and OPT_TIME have their own). */
    const char *refusal;
    int64_t min, max;           /* OPT_NUMBER's range */
    const char *const *choices; /* OPT_CHOICE's words, NULL-terminated */
    int (*parse)(const char *arg, void *to); /* OPT_PARSE */
    bool *given;                /* when set: true once the option is given */
    const char **given_name;    /* when set: "--name" of the option, once given */
    int *times;                 /* when set: counts each time it is given */
} opt_spec;

/* Parse argv's options by specs (each command's -h and --help print usage
 * to stdout): -1 to go on with the PATHs from argv[optind], else the exit
 * status (EXIT_CLEAN after the help; EXIT_USAGE after saying why, with the
 * usage, on stderr). With no_paths set, no PATH after the options is the
 * usage error "kfsck CMD: NO_PATHS". */
int opt_parse(const char *cmd, int argc, char **argv, const opt_spec *specs, void (*usage)(FILE *),
              const char *no_paths);
/* The options of a command with only --json, --max-batch-bytes and --help
 * (verify, replicas) into *json and *max_batch: opt_parse's answer. */
int opt_json_and_batch(const char *cmd, int argc, char **argv, void (*usage)(FILE *), bool *json,
                       uint64_t *max_batch);

#endif
