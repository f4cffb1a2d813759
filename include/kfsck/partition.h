/* partition.h: the partitions found under a set of PATHs (segment files,
 * partition directories, broker data directories), each with every copy
 * given (the same partition from several brokers or backups), and the
 * partition reader: one log, in offset order, over the intact batches of all
 * of a partition's copies, so that damage in one copy is covered by another.
 *
 * Every job that reads a partition's log (offsets, groups, Connect offsets,
 * stats, txns, metadata, merge) reads it through kf_part_reader. */
#ifndef KFSCK_PARTITION_H
#define KFSCK_PARTITION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/batch.h"
#include "kfsck/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One copy of a partition: a partition directory, or a single segment file. */
typedef struct kf_copy {
    char *label;        /* the partition dir (or the file) as given */
    char **segments;    /* .log paths in base-offset order */
    int64_t *bases;     /* base offset from each file name (-1 when not named like one) */
    size_t nseg;
} kf_copy;

typedef struct kf_partition {
    char *topic;        /* "" when unknown (a loose file outside a partition dir) */
    int32_t partition;  /* -1 when unknown */
    kf_copy *copies;
    size_t ncopies;
} kf_partition;

typedef struct kf_inputs {
    kf_partition *parts;  /* sorted by topic, then partition */
    size_t n;
} kf_inputs;

/* A PATH that could not be used: err_no is its errno (0 when the path is
 * readable but is not a Kafka file or directory), what says it in words. */
typedef void (*kf_path_error_fn)(void *ctx, const char *path, int err_no, const char *what);

/* Collect the partitions under paths into *in. Returns KF_OK when every
 * path was usable; KF_ERR_IO when some was not (each reported through fn;
 * what was found is still in *in); KF_ERR_NOMEM. Free with kf_inputs_free. */
int kf_inputs_collect(kf_inputs *in, char *const *paths, size_t n, kf_path_error_fn fn, void *ctx);
void kf_inputs_free(kf_inputs *in);
const kf_partition *kf_inputs_find(const kf_inputs *in, const char *topic, int32_t partition);

/* ---- the partition reader ------------------------------------------------ */

typedef struct kf_part_reader kf_part_reader;

typedef struct kf_part_reader_opts {
    size_t max_batch_bytes;   /* decompression cap per batch */
    unsigned threads;         /* reader threads per segment (kf_scan_opts.threads) */
    /* Problems met in the copies (problem.file: the segment), copies that
     * disagree ("copies_disagree", warning) and damage no copy covers
     * ("offsets_lost", error, reported by kf_part_reader_close). */
    kf_problem_fn problem_fn;
    void *problem_ctx;
} kf_part_reader_opts;

void kf_part_reader_opts_init(kf_part_reader_opts *o);

/* Open a reader over p's copies. KF_OK or KF_ERR_NOMEM. A segment that
 * cannot be opened is an "unreadable" problem and counts as damage. */
int kf_part_reader_open(kf_part_reader **r, const kf_partition *p, const kf_part_reader_opts *o);

/* The next batch of the log: for each offset range the intact batch of a
 * copy that has it (same first offset in several copies: the higher
 * partition leader epoch). Returns 1 with *b set (its bytes stay valid until
 * the next call), 0 at the end, or a negative kf_err. */
int kf_part_reader_next(kf_part_reader *r, kf_batch *b);

/* The segment file the last batch came from. */
const char *kf_part_reader_file(const kf_part_reader *r);

/* Begin iterating the records of b, the batch last returned (decompressing
 * into the reader's own buffer, capped at max_batch_bytes). As
 * kf_records_begin: KF_OK, or a kf_err with it->err_code / err_msg set. */
int kf_part_reader_records(kf_part_reader *r, kf_batch *b, kf_record_iter *it);

typedef struct kf_part_result {
    uint64_t batches;          /* batches returned */
    uint64_t damaged_ranges;   /* damage seen in some copy */
    uint64_t uncovered;        /* ... of which no other copy holds the offsets intact */
    uint64_t disagreements;    /* same offsets, different bytes in two copies */
    bool has_offsets;
    int64_t last_offset;       /* of the last batch returned */
    bool unreadable;           /* a segment could not be opened */
    uint64_t errors, warnings; /* problems reported, "offsets_lost" included */
} kf_part_result;

/* Report damage that no copy covers ("offsets_lost"), fill *res (may be
 * NULL) and free the reader. Reading on to the end first is what makes
 * the coverage judgement whole. */
void kf_part_reader_close(kf_part_reader *r, kf_part_result *res);

/* Log end offset of a partition: last offset + 1 of the last intact batch
 * over all copies (a log with no batch: the base offset of its last
 * segment). Returns false when no segment could be read. */
bool kf_partition_log_end(const kf_partition *p, size_t max_batch_bytes, int64_t *leo);

#ifdef __cplusplus
}
#endif

#endif
