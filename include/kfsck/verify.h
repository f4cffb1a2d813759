/* verify.h: checking Kafka files, partition directories and broker data
 * directories (what `kfsck verify` does): every batch of every segment, each
 * segment's indexes against it, a partition's segments against each other,
 * and the small files beside them (snapshots, checkpoints,
 * partition.metadata, meta.properties). Findings go to callbacks in a fixed
 * order; nothing is printed. A file that cannot be read is an "unreadable"
 * problem (and res->unreadable), never a failure of the call. */
#ifndef KFSCK_VERIFY_H
#define KFSCK_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/common.h"
#include "kfsck/sys/names.h"
#include "kfsck/sys/schema_ids.h"
#include "kfsck/sys/segment.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KF_VERIFY_OPTIONS_VERSION 2
#define KF_VERIFY_OPTIONS_INIT KF_OPTIONS_INIT_(kf_verify_opts, KF_VERIFY_OPTIONS_VERSION)
typedef struct kf_verify_opts {
    unsigned version;         /* KF_VERIFY_OPTIONS_VERSION (kfsck.h: options) */
    size_t max_batch_bytes;   /* decompression cap per batch (0: the default) */
    unsigned threads;         /* reader threads per segment (kf_segment_scan_opts.threads) */
    size_t chunk_bytes;       /* reader chunk size (kf_segment_scan_opts.chunk_bytes; 0: default) */
    /* Every problem, with p->file set to the file it is about. */
    kf_problem_fn problem_fn;
    void *problem_ctx;
    /* One summary per segment checked, after its problems (may be NULL). */
    void (*segment_fn)(void *ctx, const char *path, const kf_segment_summary *s);
    void *segment_ctx;
    /* Progress within a large segment (may be NULL). */
    void (*progress_fn)(void *ctx, const char *path, uint64_t position, uint64_t size);
    void *progress_ctx;
    /* kf_verify_paths: each PATH that cannot be used ("kfsck: <path>:
     * <what>"; a file of a kind kfsck does not know, skipped, too), and the
     * end of each PATH's checks (may be NULL). */
    void (*path_error_fn)(void *ctx, const char *path, int err_no, const char *what);
    void (*path_done_fn)(void *ctx, const char *path);
    void *path_ctx;
    /* Version 2. --schema-ids: check that every non-null key and/or value
     * of a data record is framed for the Confluent Schema Registry
     * (schema_ids.h); each one that is not is a schema_framing warning with
     * the fields `field` and `first_bytes` (up to KF_SCHEMA_FIRST_BYTES, in
     * hex). 0: no check. */
    unsigned schema_fields;   /* KF_SCHEMA_CHECK_KEY | KF_SCHEMA_CHECK_VALUE */
    /* When not NULL, emptied at the start of each segment and filled with the
     * ids seen in the fields checked: read it in segment_fn. */
    kf_schema_tally *schema_tally;
} kf_verify_opts;

#define KF_SCHEMA_CHECK_KEY 1u
#define KF_SCHEMA_CHECK_VALUE 2u
#define KF_SCHEMA_FIRST_BYTES 16

/* Fills *o as KF_VERIFY_OPTIONS_INIT does: the version, every other field zero (its
 * default). Every function here taking a kf_verify_opts: it may be NULL
 * (the defaults); its version must be 1..KF_VERIFY_OPTIONS_VERSION, else
 * KF_ERR_UNSUPPORTED (kfsck.h, "Options"). */
void kf_verify_opts_init(kf_verify_opts *o);

/* Counts over everything checked; add up across calls (zero it first). */
typedef struct kf_verify_result {
    uint64_t errors, warnings;
    bool unreadable;          /* some file or directory could not be read */
    uint64_t unreadable_paths; /* paths that could not be read: each "unreadable"
                                  problem, each PATH the walk could not use */
} kf_verify_result;

/* What one partition's log looks like (its plain .log segments). */
typedef struct kf_partition_summary {
    bool listed;              /* the directory could be listed */
    uint64_t segments;        /* plain .log files (no .deleted/.cleaned/.swap) */
    uint64_t bytes;           /* their total size */
    bool has_offsets;         /* some intact batch */
    int64_t first_offset;     /* first offset of the first intact batch */
    int64_t last_offset;      /* last offset of the last intact batch */
    bool has_log_end;         /* there is a segment */
    int64_t log_end_offset;   /* last offset + 1 of the last segment's last intact
                                 batch, else that segment's base offset (as the
                                 broker loads it) */
} kf_partition_summary;

/* One file, checked by its kind: a segment (with the .index and .timeindex
 * beside it), a KRaft .checkpoint or bootstrap.checkpoint (its batches, then
 * its snapshot header and footer: snapshot_incomplete), an index,
 * .txnindex, snapshot, checkpoint, partition.metadata, meta.properties or
 * quorum-state. `kind` and
 * `base_offset` normally come from kf_classify_name; a file with an unknown
 * name that starts like a segment may be passed as KF_FILE_LOG with base -1.
 * Returns KF_OK or KF_ERR_NOMEM; *seg (may be NULL) gets a segment's summary. */
int kf_verify_file(const char *path, kf_file_kind kind, int64_t base_offset, const kf_verify_opts *o,
                   kf_verify_result *res, kf_segment_summary *seg);

/* Every file of a partition directory, and its segments against each other
 * (segment_overlap, segment_gap); a KRaft metadata partition
 * (__cluster_metadata-N, or one holding KRaft snapshots or a quorum-state)
 * also gets the checks of kraft_check.h (snapshot_incomplete,
 * snapshot_missing, checkpoint_invalid). *ps may be NULL. */
int kf_verify_partition(const char *dir, const kf_verify_opts *o, kf_verify_result *res, kf_partition_summary *ps);

/* A broker data directory: its meta.properties and offset checkpoints, and
 * every partition directory in it. */
int kf_verify_datadir(const char *dir, const kf_verify_opts *o, kf_verify_result *res);

/* What `kfsck verify PATH...` checks: each PATH by what it is (paths.h): a
 * file by kf_verify_file (by its name; an unknown name that starts like a
 * segment as a segment; another is skipped), a partition dir by
 * kf_verify_partition, a data dir by kf_verify_datadir. Returns KF_OK;
 * KF_ERR_IO when some PATH could not be used (each said through
 * path_error_fn; a skipped file is said but is no failure); KF_ERR_NOMEM
 * (said against the PATH being checked). */
int kf_verify_paths(char *const *paths, size_t n, const kf_verify_opts *o, kf_verify_result *res);

/* verify's JSON line of a segment (kfsck/sys/json_lines.h), as `kfsck
 * verify --json` has it: its figures, and with a tally (--schema-ids) how
 * many records name each schema id. A schema id is named as kf_schema_id_name
 * writes it: the id in decimal, or the GUID as text. */
struct kf_jsonl;
void kf_verify_segment_json(struct kf_jsonl *j, const char *path, const kf_segment_summary *s,
                            const kf_schema_tally *t);
void kf_schema_id_name(const kf_schema_frame *f, char name[37]);

#ifdef __cplusplus
}
#endif

#endif
