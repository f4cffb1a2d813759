/* partitions.h: the command line's PATHs as partitions (kf_inputs), the
 * partition reader options with the CLI's problem printing, and the calls
 * of the library's drivers that read every partition of one topic
 * together: the __consumer_offsets replay on one time line and Connect
 * source offsets. */
#ifndef KFSCK_CLI_PARTITIONS_H
#define KFSCK_CLI_PARTITIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/out.h"
#include "kfsck/kfsck.h"
#include "kfsck/sys/part_reader.h"
#include "kfsck/offsets_job.h"
#include "kfsck/replay.h"

/* kf_inputs_collect with "kfsck: <path>: <what>" on stderr for each path
 * that cannot be used: EXIT_CLEAN, or EXIT_FAIL when some path could not
 * (what was found is still in in). Out of memory exits. */
int inputs_collect(char *const *paths, int n, kf_inputs *in);

/* inputs_collect, then, when no path failed and nothing was found, "kfsck:
 * no partition or segment found under the given paths" on stderr (the
 * commands that read every partition they are given). */
int inputs_collect_warn_none(char *const *paths, int n, kf_inputs *in);

/* The PATHs of a command that reads their partitions beside their
 * cluster's metadata (compaction, remote). */
typedef struct cluster_inputs {
    char *const *paths;
    int npaths;
    kf_inputs in;           /* their partitions */
    int in_status;          /* inputs_collect's: EXIT_FAIL when some PATH could not be used */
    kf_metadata *metadata;  /* the KRaft image among them (kf_metadata_of_paths; NULL: none) */
} cluster_inputs;

/* Fills ci from paths[0..n): -1, or EXIT_FAIL when they are of different
 * clusters (said on stderr by cli_mixed_clusters; nothing read, ci not to
 * be freed). Their partitions as inputs_collect (inputs_collect_warn_none
 * with warn_none) finds them, the metadata's batches capped at
 * max_batch_bytes. Out of memory exits. */
int cluster_inputs_read(cluster_inputs *ci, char *const *paths, int n, uint64_t max_batch_bytes, bool warn_none);
void cluster_inputs_free(cluster_inputs *ci);

/* Options of a partition reader whose problems go to rep (rep->o prints
 * them), with the reader tuning of the environment (reader_tuning);
 * max_batch_bytes as --max-batch-bytes gave it (capped at SIZE_MAX). */
void part_reader_opts(kf_part_reader_opts *o, uint64_t max_batch_bytes, report *rep);

/* kf_replay_offsets_topic over the inputs with readers capped at
 * max_batch_bytes whose problems go to perr (their counts are not kept:
 * res->uncovered is the damage that matters); out of memory exits. */
void replay_offsets_topic(const kf_inputs *in, kf_replay *r, size_t max_batch_bytes, out *perr,
                          kf_offsets_topic_result *res);

/* The replay's coordinator_load_error problems to rep, with their
 * source_partition and decode_error fields. */
void replay_report_load_errors(kf_replay *r, report *rep);

/* The callbacks replay_report_load_errors and replay_offsets_topic give
 * the library, ctx a report: a coordinator_load_error
 * with its own fields, an offsets_lost problem with its time window
 * (first_timestamp, last_timestamp). */
void report_load_error(void *ctx, const kf_coord_load_error *e);
void report_offsets_lost(void *ctx, const kf_offsets_lost *l);

/* A replay of the offsets topic (no as-of, no history) whose problems and
 * coordinator_load_errors go to rep, batches capped at max_batch_bytes;
 * out of memory exits. */
kf_replay *offsets_replay_new(size_t max_batch_bytes, report *rep);

/* The options of the offsets job (offsets, groups) as the CLI prints its
 * problems: the replay's and its coordinator_load_errors (with their
 * source_partition and decode_error) counted in rep, the readers' and each
 * offsets_lost (with its time window) in readers (damage counts only where
 * no copy covers it: those counts are not kept). */
void offsets_job_opts(kf_offsets_job_opts *o, size_t max_batch_bytes, report *rep, report *readers);

/* The end of a command that ran the offsets job (offsets, groups): the
 * job, the topic names (NULL: none) and the inputs freed, stdout flushed.
 * The exit code: EXIT_FAIL when a path (in_status) or a segment could not
 * be read, EXIT_DAMAGE when damage no copy covers, records that did not
 * decode or an error in rep were met, else EXIT_CLEAN. */
int offsets_job_finish(kf_offsets_job *j, kf_topic_names *names, kf_inputs *in, int in_status, const report *rep);

/* On stderr, for each of wanted[0..n) that is not among names[0..nnames)
 * (what: "group" or "topic"): that it matches nothing, and the closest
 * names (kf_closest_names). */
void note_unmatched(const char *what, const char *const *wanted, size_t n, const char *const *names, size_t nnames);

/* On stderr: which __consumer_offsets partition holds each group (Java
 * hashCode rule), and a warning when that partition is not in the inputs. */
void note_group_partitions(const kf_inputs *in, const char *const *groups, size_t n, int32_t partitions);

/* `offsets --connect` (connect.c): Connect source offsets from the topic's
 * partitions among the inputs. Returns an exit code. */
int connect_offsets(const kf_inputs *in, const char *topic, uint64_t max_batch_bytes, bool json, out *o, out *perr);

#endif
