/* part_reader.h: the partition reader: the log of a partition read from
 * all of its copies at once, in offset order, each copy with its own
 * streaming reader, so that damage in one copy is covered by another.
 * Every job that reads a partition's log (offsets, groups, Connect offsets,
 * stats, txns, metadata, merge) reads it through kf_part_reader.
 *
 * For each offset range it returns one intact batch (see below) of some copy; one set of rules,
 * whoever reads:
 *
 *  - intact: the reader's framing and CRC checks pass, the batch's offsets
 *    come after the copy's previous intact batch and fit its segment (else
 *    an offset_regression / base_offset_mismatch / offset_overflow problem);
 *    with opts.deep also every check verify makes inside the batch (its
 *    records decode, their count agrees with the header's, a control
 *    batch holds one well-formed record, the header is sane).
 *    What is not intact is damage in that copy.
 *  - divergent history: the log never goes back to a lower leader epoch. A
 *    v2 batch whose leader epoch is lower than an epoch that starts at or
 *    before its last offset (known from any copy's batches, or from a
 *    copy's leader-epoch-checkpoint entry that the copy's own batches reach:
 *    the broker drops entries at or past its log end when it loads the log)
 *    is history the cluster discarded: it is left out. The judgement uses
 *    what is known when the batch is reached: every copy's checkpoint, and
 *    each copy's batches up to one past the offsets being decided.
 *  - choice: the intact, not divergent batch with the lowest first offset;
 *    for the same first offset the higher leader epoch, then the copy given
 *    first. Batches of the other copies over offsets already taken are left
 *    out; a copy holding the very bytes taken agrees.
 *  - conflict: a left-out batch that does not hold the bytes taken (other
 *    bytes or other batch boundaries over the same offsets, or a divergent
 *    history). Left-out batches whose offsets touch or overlap make one
 *    conflict, from the first offset any of them holds to the last: all the
 *    data that was left out. chosen is the copy whose batch was taken at the
 *    conflict's first offset (when none was: the copy that showed the higher
 *    epoch); leader_epochs: each copy's epoch there (the chosen copy's, the
 *    taken batch's).
 *  - hole: offsets no batch taken holds that some copy showed damage over or
 *    that only left-out batches hold: the gap between two batches taken (or
 *    before the first, or after the last) cut to the span of that damage.
 *    Damage of unknown extent at a copy's end (a torn entry whose header
 *    cannot be read) covers its offsets up to the next one another copy
 *    supplies; when none does, the hole is open-ended.
 *
 * Conflicts and holes go to conflict_fn / hole_fn as they are found (a
 * conflict once no later batch can extend it); without those callbacks they
 * are problems instead: each conflict a "copies_disagree" warning as it is
 * found, each hole an "offsets_lost" error from kf_part_reader_close. */
#ifndef KFSCK_PART_READER_H
#define KFSCK_PART_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/common.h"
#include "kfsck/partition.h"
#include "kfsck/sys/batch.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kf_part_reader kf_part_reader;

typedef struct kf_part_conflict {
    int64_t start_offset, end_offset;   /* inclusive */
    size_t chosen;                      /* index of the copy taken */
    size_t ncopies;
    const int32_t *leader_epochs;       /* per copy (-1: a v0/v1 batch) */
    const bool *has;                    /* per copy: holds a batch here */
} kf_part_conflict;

typedef struct kf_part_hole {
    bool has_start;                     /* false: from the start of a copy whose base is unknown */
    int64_t start_offset;
    bool has_end;                       /* false: up to a damaged end of unknown extent */
    int64_t end_offset;                 /* inclusive */
    bool discarded;                     /* only left-out batches (a discarded history) hold them;
                                           no copy showed damage there */
} kf_part_hole;

#define KF_PART_READER_OPTIONS_VERSION 1
#define KF_PART_READER_OPTIONS_INIT KF_OPTIONS_INIT_(kf_part_reader_opts, KF_PART_READER_OPTIONS_VERSION)
typedef struct kf_part_reader_opts {
    unsigned version;         /* KF_PART_READER_OPTIONS_VERSION (kfsck.h: options) */
    size_t max_batch_bytes;   /* decompression cap per batch (0: the default) */
    unsigned threads;         /* reader threads per segment (kf_segment_scan_opts.threads) */
    size_t chunk_bytes;       /* read size (kf_segment_scan_opts.chunk_bytes; 0: its default) */
    bool deep;                /* intact also means: every record decodes (above) */
    /* Problems met in the copies (problem.file: the segment), and, unless
     * the callbacks below take them, "copies_disagree" and "offsets_lost". */
    kf_problem_fn problem_fn;
    void *problem_ctx;
    void (*conflict_fn)(void *ctx, const kf_part_conflict *c);
    void (*hole_fn)(void *ctx, const kf_part_hole *h);
    void *event_ctx;
} kf_part_reader_opts;

/* Fills *o as KF_PART_READER_OPTIONS_INIT does: the version, every other field zero (its
 * default). Every function here taking a kf_part_reader_opts: it may be NULL
 * (the defaults); its version must be 1..KF_PART_READER_OPTIONS_VERSION, else
 * KF_ERR_UNSUPPORTED (kfsck.h, "Options"). */
void kf_part_reader_opts_init(kf_part_reader_opts *o);

/* Open a reader over p's copies (p must outlive it). KF_OK or KF_ERR_NOMEM.
 * A segment that cannot be opened is an "unreadable" problem and counts as
 * damage. */
int kf_part_reader_open(kf_part_reader **r, const kf_partition *p, const kf_part_reader_opts *o);

/* The next batch of the log (the rules above). Returns 1 with *b set (its
 * bytes stay valid until the next call), 0 at the end (every conflict and
 * hole has been delivered by then), or a negative kf_err. */
int kf_part_reader_next(kf_part_reader *r, kf_batch *b);

/* The segment file the last batch came from, and the index of its copy. */
const char *kf_part_reader_file(const kf_part_reader *r);
size_t kf_part_reader_copy(const kf_part_reader *r);

/* Begin iterating the records of b, the batch last returned (decompressing
 * into the reader's own buffer, capped at max_batch_bytes). As
 * kf_records_begin: KF_OK, or a kf_err with it->err_code / err_msg set. */
int kf_part_reader_records(kf_part_reader *r, kf_batch *b, kf_record_iter *it);

/* The holes found so far, in the order found, when no hole_fn takes them
 * (they become "offsets_lost" problems at kf_part_reader_close, in this
 * order): a hole is found just before the batch after it is returned, or at
 * the end of the log. */
size_t kf_part_reader_holes(const kf_part_reader *r);
const kf_part_hole *kf_part_reader_hole(const kf_part_reader *r, size_t i);

typedef struct kf_part_result {
    uint64_t batches;          /* batches returned */
    uint64_t damaged_ranges;   /* damage seen in some copy */
    uint64_t uncovered;        /* holes */
    uint64_t disagreements;    /* conflicts */
    bool has_offsets;
    int64_t last_offset;       /* of the last batch returned */
    bool unreadable;           /* a segment could not be opened */
    uint64_t errors, warnings; /* problems reported, "offsets_lost" included */
} kf_part_result;

/* Report the holes as "offsets_lost" (without hole_fn), fill *res (may be
 * NULL) and free the reader. Reading on to the end first is what makes the
 * judgement whole. */
void kf_part_reader_close(kf_part_reader *r, kf_part_result *res);

#ifdef __cplusplus
}
#endif

#endif
