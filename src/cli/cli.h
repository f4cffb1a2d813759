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
/* The options of a command with only --json, --max-batch-bytes and --help
 * (verify, replicas) into *json and *max_batch: -1 to go on with the PATHs
 * from argv[optind], else the exit status (the help printed, or a usage
 * error said with usage). */
int opt_json_and_batch(const char *cmd, int argc, char **argv, void (*usage)(FILE *), bool *json,
                       uint64_t *max_batch);

#endif
