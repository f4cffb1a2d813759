/* segment.h: walking a .log segment from start to end the way broker recovery
 * does, with deeper checks than the broker makes, finding where the broker
 * would truncate (valid_bytes), resynchronising past damage to the next
 * well-formed batch, and checking the segment's indexes in the same pass. */
#ifndef KFSCK_SEGMENT_H
#define KFSCK_SEGMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/sys/batch.h"
#include "kfsck/common.h"
#include "kfsck/sys/file.h"
#include "kfsck/sys/index.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A segment as a writer wrote it (the partition writer, for repair, merge
 * and rebuild): its bytes, its batches and their offsets, and the entries
 * of the .index and .timeindex written beside it. */
typedef struct kf_segment_written {
    uint64_t size, batches;
    bool has_offsets;
    int64_t first_offset, last_offset;
    uint64_t index_entries, time_entries;
} kf_segment_written;

typedef struct kf_segment_summary {
    uint64_t size;
    uint64_t batches;        /* well-formed batches read (CRC ok) */
    uint64_t records;
    uint64_t bad_batches;    /* damaged entries / regions */
    uint64_t valid_bytes;    /* where broker recovery would truncate */
    bool has_offsets;
    int64_t first_offset, last_offset;  /* over intact batches */
    int64_t max_timestamp;
    uint64_t errors, warnings;
    /* The segment's end once broker recovery has cut it at valid_bytes: the
     * last offset of the last intact batch (in file order) that ends at or
     * below valid_bytes; none when no batch does (or valid_bytes is 0). */
    bool has_recovered_offsets;
    int64_t recovered_last_offset;
} kf_segment_summary;

/* Called for each intact batch (CRC ok), in file order, before its records.
 * Return non-zero to stop the scan. */
typedef int (*kf_batch_fn)(void *ctx, const kf_batch *b);
/* Called for each record when opts->records is set. */
typedef int (*kf_record_fn)(void *ctx, const kf_batch *b, const kf_record *r);

/* A damaged stretch of a segment (dump --include-damaged): from where the
 * reader met damage to the next damage, the next intact batch or the end,
 * with the header fields of the batch it starts with as far as its bytes
 * go (each has_*), and its first bytes. */
#define KF_DAMAGED_BYTES_MAX ((size_t)16 << 10) /* the bytes kept of a stretch: 16 KiB */
typedef struct kf_damaged {
    const char *file;               /* the file, when the reporter knows it better than the
                                       receiver (kf_range_read); else NULL */
    uint64_t position, length;      /* the stretch [position, position + length) */
    const char *code;               /* the problem that began it (KF_P_*) */
    bool has_base_offset, has_batch_length, has_leader_epoch, has_magic, has_crc, has_attributes,
        has_last_offset_delta, has_base_timestamp, has_max_timestamp, has_producer_id, has_producer_epoch,
        has_base_sequence, has_count;
    int64_t base_offset;
    int32_t batch_length;           /* the length field (bytes after it) */
    int32_t leader_epoch;           /* v2 */
    int8_t magic;
    uint32_t crc;                   /* stored */
    int16_t attributes;             /* v2: 16 bits; v0/v1: the byte */
    int32_t last_offset_delta;      /* the fields after attributes: v2 only */
    int64_t base_timestamp, max_timestamp; /* v1: the message timestamp is base_timestamp */
    int64_t producer_id;
    int16_t producer_epoch;
    int32_t base_sequence;
    int32_t count;
    const uint8_t *bytes;           /* the stretch's first nbytes bytes (valid during the call) */
    size_t nbytes;                  /* at most KF_DAMAGED_BYTES_MAX */
    const char *message;            /* the words of the problem that began it (valid during
                                       the call; NULL when not known) */
} kf_damaged;
typedef void (*kf_damaged_fn)(void *ctx, const kf_damaged *d);

/* The header fields the n bytes at p hold (the start of a damaged
 * stretch), into d (position, length, code and bytes are left as they are). */
void kf_damaged_header(const uint8_t *p, size_t n, kf_damaged *d);

/* The records of the batch the damaged stretch d of src begins with, as far
 * as they decode (dump --include-damaged --records, as kafka-dump-log.sh
 * prints the records of a corrupt batch): when the stretch starts with an
 * entry that frames (its size field puts its end inside the stretch; at
 * most max_batch_bytes, 0: the default) and whose CRC does not hold, its
 * header is parsed and its records go to fn in order (b->crc_ok false)
 * until the first that does not decode or fn returns non-zero. The bytes
 * are untrusted: reads are bounds-checked, decompression is capped at
 * max_batch_bytes. Nothing is reported (the stretch's problems were). KF_OK
 * with *n (may be NULL) the records handed out (0 when the stretch does not
 * start with such a batch), KF_ERR_NOMEM, or KF_ERR_IO (a read failed). */
int kf_damaged_records(kf_source *src, const kf_damaged *d, size_t max_batch_bytes, kf_record_fn fn, void *ctx,
                       uint64_t *n);

#define KF_SEGMENT_SCAN_OPTIONS_VERSION 2
#define KF_SEGMENT_SCAN_OPTIONS_INIT KF_OPTIONS_INIT_(kf_segment_scan_opts, KF_SEGMENT_SCAN_OPTIONS_VERSION)
typedef struct kf_segment_scan_opts {
    unsigned version;         /* KF_SEGMENT_SCAN_OPTIONS_VERSION (kfsck.h: options) */
    size_t max_batch_bytes;   /* decompression cap per batch; also the largest
                                 batch read whole (a larger one is reported);
                                 0: KF_DEFAULT_MAX_BATCH_BYTES */
    bool deep;                /* decode records (decompressing) and check them
                                 (off by default, as kf_part_reader_opts.deep) */
    bool records;             /* call record_fn per record (implies deep) */
    bool no_resync;           /* stop at the first damage; by default the reader scans
                                 forward from it for the next good batch */
    bool has_base_offset;     /* the segment's base offset from its name is known: */
    int64_t base_offset;      /* it (batches below it, or more than 2^31-1 past it, are damage) */
    bool limited;             /* the source is a prefix (dump --max-bytes): a torn end is not damage */
    bool broker_view;         /* the iterator also returns the entries broker recovery keeps
                                 although they are damaged: a batch whose only damage is its
                                 magic byte (read as v2, check->bad_magic) and a v0/v1
                                 message whose lengths do not fit (check->header_ok false);
                                 both are still reported as problems */
    unsigned threads;         /* reader threads: 0 automatic (files of 4 MiB and more on
                                 2+ cores: each reads, frames and checks CRCs and
                                 decodes), 1 none (everything on the caller's thread) */
    size_t chunk_bytes;       /* bytes read at a time (0: 1 MiB; tests use tiny ones) */
    bool keep_cache;          /* leave the page cache as the reads left it; by default
                                 pages this read brought in are dropped behind it */
    const kf_index *offset_index;   /* checked against the log when non-NULL */
    const kf_index *time_index;
    kf_batch_fn batch_fn;
    kf_record_fn record_fn;
    void *ctx;
    kf_problem_fn problem_fn;
    void *problem_ctx;
    /* Problems found in the indexes go here (positions are in the index file). */
    kf_problem_fn index_problem_fn;
    void *index_problem_ctx;
    kf_problem_fn timeindex_problem_fn;
    void *timeindex_problem_ctx;
    /* Called about every 64 MiB of progress (NULL: never). */
    void (*progress_fn)(void *ctx, uint64_t position, uint64_t size);
    void *progress_ctx;
    /* Version 2. Begin reading at this byte position (the start of a batch:
     * kf_segment_seek finds one); 0, the default, is the segment's start.
     * The summary then covers only what was read from there (its
     * valid_bytes is not broker recovery's), and no index is checked. */
    uint64_t start_position;
    /* Each damaged stretch (kf_damaged), after the problems that report it;
     * NULL: none. */
    kf_damaged_fn damaged_fn;
    void *damaged_ctx;
} kf_segment_scan_opts;

/* Fills *o as KF_SEGMENT_SCAN_OPTIONS_INIT does: the version, every other field zero (its
 * default). Every function here taking a kf_segment_scan_opts: it may be NULL
 * (the defaults); its version must be 1..KF_SEGMENT_SCAN_OPTIONS_VERSION, else
 * KF_ERR_UNSUPPORTED (kfsck.h, "Options"). */
void kf_segment_scan_opts_init(kf_segment_scan_opts *o);

/* Scan a segment: every batch in file order, with the checks above, the
 * problems through o->problem_fn. Returns KF_OK, KF_ERR_NOMEM, or KF_ERR_IO
 * (a read failed: errno kept); the summary holds what was seen. */
int kf_segment_scan(kf_source *src, const kf_segment_scan_opts *o, kf_segment_summary *sum);

/* ---- the streaming reader ---------------------------------------------------
 *
 * Pull-style walk over the entries broker recovery accepts (framing,
 * minimum size, CRC), resynchronising past damage, which is reported through
 * o->problem_fn, in file order, on the caller's thread. Reads with pread
 * into a few reused buffers (o->chunk_bytes each); a batch larger than that
 * is read whole, up to o->max_batch_bytes. With threads, each reads blocks
 * ahead and checks CRCs (and, with o->deep, decodes records); results
 * come back in file order, so output does not depend on the thread count.
 * Several iterators can run side by side (merging copies of a partition). */
typedef struct kf_segment_iter kf_segment_iter;

/* What the reader's checks found in the batch last returned. */
typedef struct kf_batch_check {
    bool header_ok;           /* false: a v0/v1 message whose CRC holds but whose
                                 key/value lengths do not fit its size */
    bool bad_magic;           /* o->broker_view: the magic byte is above 2, the rest of
                                 the batch is intact (the header is read as v2) */
    bool deep_done;           /* records were decoded (o->deep) */
    bool records_ok;          /* every record decoded and the counts agree */
    uint64_t records;         /* records decoded */
    const char *code;         /* the first record problem's KF_P_* code, else NULL */
    const char *message;      /* and its text (valid until the next call) */
    bool control_malformed;   /* a control batch's first record does not parse */
    uint32_t control_extra;   /* records after the first in a control batch */
} kf_batch_check;

/* Opens an iterator over src (which must outlive it). KF_OK or KF_ERR_NOMEM. */
int kf_segment_iter_open(kf_segment_iter **it, kf_source *src, const kf_segment_scan_opts *o);
/* 1 with *b set (its bytes stay valid until the next call), 0 at the end,
 * or a negative kf_err. *damaged is set when damage was skipped since the
 * previous entry returned. A v0/v1 message with wrong lengths is returned
 * only when o->deep or o->broker_view (check->header_ok false); otherwise
 * skipped as damage. */
int kf_segment_iter_next(kf_segment_iter *it, kf_batch *b, bool *damaged);
/* The checks of the batch last returned. */
const kf_batch_check *kf_segment_iter_check(const kf_segment_iter *it);
/* Begin iterating the records of b, the batch last returned (a copy of it
 * is fine). As kf_records_begin. */
int kf_segment_iter_records(kf_segment_iter *it, kf_batch *b, kf_record_iter *rit);
/* Counts so far (batches, bad_batches, errors; valid_bytes once the end is
 * reached). */
const kf_segment_summary *kf_segment_iter_summary(const kf_segment_iter *it);
/* Has the reader met the damage where broker recovery stops reading the
 * segment (every entry returned after it lies past valid_bytes)? Then
 * *valid_bytes is that position. At the end it is always known. */
bool kf_segment_iter_recovery_point(const kf_segment_iter *it, uint64_t *valid_bytes);
void kf_segment_iter_close(kf_segment_iter *it);

/* Where to begin reading a segment for the batch holding `offset`, with its
 * offset index (may be NULL: then 0): the position of the largest entry at
 * or below offset, when that entry holds up. The index is a hint and is not
 * trusted: the entry is taken only when its position lies inside the log,
 * an intact batch (framing and CRC; at most max_batch_bytes, 0: the
 * default) starts there, its offsets lie between the segment's base offset
 * (ix->base_offset) and the entry's offset (the broker indexes an append by
 * its largest offset and the position of its first batch), and so every
 * batch before it in a segment whose offsets increase ends below offset.
 * Otherwise *position is 0: the reader starts at the segment's start and
 * finds the same batches. *from_index (may be NULL) says which. KF_OK,
 * KF_ERR_NOMEM, or KF_ERR_IO when the log cannot be read. */
int kf_segment_seek(kf_source *log, const kf_index *ix, int64_t offset, size_t max_batch_bytes, uint64_t *position,
                    bool *from_index);

/* Where broker recovery (LogSegment.recover) would truncate a segment, into
 * *valid_bytes: the start of the first entry that fails framing, the
 * minimum size, the CRC or the offset range; 0 when an index append during
 * recovery would fail. base_offset: from the file name, -1 when unknown.
 * KF_OK, or kf_segment_scan's error (*valid_bytes then what was read
 * before it). */
int kf_recovery_point(kf_source *src, int64_t base_offset, uint64_t *valid_bytes);

#ifdef __cplusplus
}
#endif

#endif
