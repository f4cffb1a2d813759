/* partitions.h: the partitions found under the command line's PATHs (data
 * dirs, partition dirs, single segments), each with every copy given (the
 * same partition from several brokers or backups), and a reader that walks
 * the union of the copies' intact batches in offset order. */
#ifndef KFSCK_CLI_PARTITIONS_H
#define KFSCK_CLI_PARTITIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/out.h"
#include "kfsck/kfsck.h"

typedef struct part_copy {
    char *label;        /* the partition dir (or the file) as given */
    char **segments;    /* .log paths in base-offset order */
    int64_t *bases;
    size_t nseg;
} part_copy;

typedef struct part_input {
    char *topic;
    int32_t partition;  /* -1 when a loose file's partition is unknown */
    part_copy *copies;
    size_t ncopies;
} part_input;

typedef struct inputs {
    part_input *parts;  /* sorted by topic, partition */
    size_t n;
} inputs;

/* Collect the partitions under paths. Prints "kfsck: <path>: ..." for a path
 * that does not exist or cannot be listed and returns EXIT_FAIL then (what
 * was found is still in out); EXIT_CLEAN otherwise. */
int inputs_collect(char *const *paths, int n, inputs *in);
void inputs_free(inputs *in);
const part_input *inputs_find(const inputs *in, const char *topic, int32_t partition);

typedef struct union_result {
    uint64_t batches;           /* batches handed to the callback */
    uint64_t damaged_windows;   /* damage seen in some copy */
    uint64_t uncovered;         /* ... of which no other copy holds the offsets intact */
    uint64_t disagreements;     /* same offsets, different bytes in two copies */
    bool has_offsets;
    int64_t last_offset;        /* of the last batch read */
    bool unreadable;            /* a segment could not be opened */
} union_result;

typedef int (*union_batch_fn)(void *ctx, kf_batch *b);

/* Walk the union of p's copies: for each offset range, the intact batch of
 * the first copy that has it (ties: higher partition leader epoch). Damage
 * and disagreements are reported through rep (file = the segment's path).
 * fn returning non-zero stops the walk. */
void union_read(const part_input *p, union_batch_fn fn, void *ctx, out *o, uint64_t *errors, uint64_t *warnings,
                union_result *res);

/* Log end offset of a partition (last offset + 1 of the last intact batch
 * over all copies; a log with no batch: the base offset of its last
 * segment). Returns false when no segment could be read. */
bool partition_log_end(const part_input *p, int64_t *leo);

#endif
