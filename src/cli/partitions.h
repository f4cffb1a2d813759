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
#include "kfsck/replay.h"

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

/* The same as a pull iterator: union_next gives the next batch (its bytes
 * stay valid until the next union_next on this union), 0 at the end;
 * union_close adds the problem counts and fills res. */
typedef struct part_union part_union;
part_union *union_open(const part_input *p, out *o);
int union_next(part_union *u, kf_batch *b);
void union_close(part_union *u, uint64_t *errors, uint64_t *warnings, union_result *res);
/* The segment the batch last returned by union_next came from. */
const char *union_file(const part_union *u);

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

/* Replay every __consumer_offsets partition among in into r: each partition
 * in offset order over the union of its copies, partitions interleaved by
 * batch timestamp (one time line). rep->file (when rep is the replay's
 * problem context) follows the segment being replayed. Returns how many damaged ranges no copy
 * covered; *found = partitions replayed; *unreadable set when a segment
 * could not be read (the command then exits 3). */
uint64_t replay_offsets_topic(const inputs *in, kf_replay *r, report *rep, out *perr, uint64_t *found,
                              bool *unreadable);

/* On stderr: which __consumer_offsets partition holds each group (Java
 * hashCode rule), and a warning when that partition is not in the inputs. */
void note_group_partitions(const inputs *in, const char *const *groups, size_t n, int32_t partitions);

/* `offsets --connect` (connect.c): Connect source offsets from the topic's
 * partitions among the inputs. Returns an exit code. */
int connect_offsets(const inputs *in, const char *topic, uint64_t max_batch_bytes, bool json, out *o, out *perr);

#endif
