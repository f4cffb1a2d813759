/* partition.h: the partitions found under a set of PATHs (segment files,
 * partition directories, broker data directories), each with every copy
 * given (the same partition from several brokers or backups): the inputs
 * the jobs take. The partition reader, which reads one log over all of a
 * partition's copies, is kfsck/sys/part_reader.h. */
#ifndef KFSCK_PARTITION_H
#define KFSCK_PARTITION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One copy of a partition: a partition directory, or a single segment file. */
typedef struct kf_partition_copy {
    char *label;        /* the partition dir (or the file) as given */
    char **segments;    /* .log paths in base-offset order */
    int64_t *bases;     /* base offset from each file name (-1 when not named like one) */
    size_t nseg;
} kf_partition_copy;

typedef struct kf_partition {
    char *topic;        /* "" when unknown (a loose file outside a partition dir) */
    int32_t partition;  /* -1 when unknown */
    kf_partition_copy *copies;
    size_t ncopies;
} kf_partition;

typedef struct kf_inputs {
    kf_partition *parts;  /* sorted by topic, then partition */
    size_t n;
} kf_inputs;

/* A PATH that could not be used: err_no is its errno (0 when the path is
 * readable but is not a Kafka file or directory), what says it in words.
 * A report, like a problem, not the call's error: a walk meets any number
 * of such PATHs and goes on (common.h, error detail). */
typedef void (*kf_path_error_fn)(void *ctx, const char *path, int err_no, const char *what);

/* Collect the partitions under paths into *in (the walk of paths.h: a
 * file is a copy of its own, a partition dir one copy, a data dir one copy
 * of each partition dir in it). PATHs of different clusters are refused
 * whole (paths.h, one cluster): one report through fn, nothing collected.
 * Returns KF_OK when every path was usable; KF_ERR_IO when some was not
 * (each reported through fn; what was found is still in *in) or the PATHs
 * were refused; KF_ERR_NOMEM. Free with kf_inputs_free. */
int kf_inputs_collect(kf_inputs *in, char *const *paths, size_t n, kf_path_error_fn fn, void *ctx);
void kf_inputs_free(kf_inputs *in);
const kf_partition *kf_inputs_find(const kf_inputs *in, const char *topic, int32_t partition);

/* One partition whose copies are the given partition directories, whatever
 * their names (merge: copies of one partition from several brokers or
 * backups). The cluster rule of paths.h holds, each directory by its
 * parent (its data dir). Returns KF_OK; KF_ERR_IO when a directory cannot
 * be listed (reported through fn with its errno) or the directories are of
 * different clusters (reported once through fn with err_no 0, naming both
 * data dirs; no copy added); KF_ERR_NOMEM. Free with kf_partition_free. */
int kf_partition_of_dirs(kf_partition *p, const char *const *dirs, size_t n, kf_path_error_fn fn, void *ctx);
void kf_partition_free(kf_partition *p);

/* Log end offset of a partition: last offset + 1 of the last intact batch
 * over all copies (a log with no batch: the base offset of its last
 * segment). Returns false when no segment could be read. */
bool kf_partition_log_end(const kf_partition *p, size_t max_batch_bytes, int64_t *leo);

#ifdef __cplusplus
}
#endif

#endif
