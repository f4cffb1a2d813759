/* common.h: error values and the problem record shared by every parser. */
#ifndef KFSCK_COMMON_H
#define KFSCK_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Errors. Functions return KF_OK (0) or a kf_err; iterators return 1 for
 * an item, 0 at the end, or a negative kf_err (-KF_ERR_NOMEM, ...).
 * kf_err_str names either sign: kf_err_str(rc). Damage found in the data
 * is never an error of the call: it is reported as a kf_problem. */
typedef enum kf_err {
    KF_OK = 0,
    KF_ERR_TRUNCATED,   /* the input ends before the structure does */
    KF_ERR_CORRUPT,     /* the bytes do not follow the format */
    KF_ERR_UNSUPPORTED, /* a version or codec this build does not know */
    KF_ERR_TOO_BIG,     /* output would pass the caller's cap */
    KF_ERR_NOMEM,       /* allocation failed */
    KF_ERR_IO,          /* open/read/map failed (errno is kept) */
} kf_err;

const char *kf_err_str(int e);

/* Error detail: one way. When a function returns an error (a kf_err, a
 * negative kf_err from an iterator; the two exceptions kfsck.h names: NULL
 * from the path builders, -1 from kf_source_pread), what went wrong is the calling thread's last error: the code, the errno
 * of the system call that failed (0 when none did), the path it was about
 * and a message in words. It stays until the thread's next error, or
 * kf_error_clear; a call that succeeds leaves it as it was, so read it only
 * after a call that failed. Thread-local: threads never see each other's.
 *
 * Not the call's error, and not the last error: damage found in the data
 * (kf_problem, below) and the PATHs a walk could not use, of which one call
 * may meet many (kf_path_error_fn, partition.h): those are reports to the
 * caller's callbacks, and the call goes on (kfsck.h, Errors, lists every
 * kind of report). */
typedef struct kf_error {
    int code;           /* a kf_err (positive) */
    int err_no;         /* errno of the failed system call, 0 when none */
    char path[4096];    /* the file or directory it was about, "" when none */
    char message[4400]; /* what failed, in words (long enough to name a second path) */
} kf_error;

/* This thread's last error (never NULL; code KF_OK when there was none). */
const kf_error *kf_error_last(void);
void kf_error_clear(void);

/* A bounds-checked position in a byte range. The functions that read with
 * it are internal to the library; a caller only passes one to read a
 * record's headers with (kf_headers_begin, kf_header_next: sys/batch.h). */
typedef struct kf_cursor {
    const uint8_t *buf;
    size_t len;
    size_t pos;
    int err; /* 0, or a kf_err (KF_ERR_TRUNCATED / KF_ERR_CORRUPT) */
} kf_cursor;

/* The CPUs this process may run on (its affinity mask, else those online),
 * at most 256: the threads a job uses by default. */
unsigned kf_cpu_count(void);

/* Which partition a result is about: the data dir holding it, the topic and
 * partition its directory's name gives, and that directory. */
typedef struct kf_partition_ref {
    const char *datadir;
    const char *topic;
    int32_t partition;
    const char *dir;
} kf_partition_ref;

/* Default cap on one batch's decompressed size (128 MiB). */
#define KF_DEFAULT_MAX_BATCH_BYTES ((size_t)128 << 20)

/* The initializer of an options struct: its version set, every other field
 * zero, which is that field's default (kfsck.h, "Options"). Each options
 * struct's KF_<NAME>_OPTIONS_INIT is this; in C++ (before C++20, and clean
 * under -Wextra) a lambda that value-initializes the struct. */
#ifdef __cplusplus
#define KF_OPTIONS_INIT_(type, v) ([] { type o_{}; o_.version = (v); return o_; }())
#else
#define KF_OPTIONS_INIT_(type, v) { .version = (v) }
#endif

/* ---- Problems: what verify/dump report ----------------------------------- */

typedef enum kf_severity { KF_SEV_WARNING = 0, KF_SEV_ERROR = 1 } kf_severity;

/* Stable problem codes (kfsck(1), PROBLEM CODES), every one of them here.
 * Strings, so callers print them as is. */
#define KF_P_CRC_MISMATCH "crc_mismatch"
#define KF_P_TRUNCATED "truncated"
#define KF_P_BAD_LENGTH "bad_length"
#define KF_P_BAD_MAGIC "bad_magic"
#define KF_P_BAD_ATTRIBUTES "bad_attributes"
#define KF_P_OFFSET_REGRESSION "offset_regression"
#define KF_P_OFFSET_OVERFLOW "offset_overflow"
#define KF_P_LAST_OFFSET_OVERFLOW "last_offset_overflow" /* base offset + last offset delta > 2^63-1 */
#define KF_P_COUNT_MISMATCH "count_mismatch"
#define KF_P_BAD_RECORD "bad_record"
#define KF_P_DECOMPRESS_ERROR "decompress_error"
#define KF_P_ZERO_FILL "zero_fill"
#define KF_P_INDEX_BEYOND_LOG "index_beyond_log"
#define KF_P_INDEX_NOT_MONOTONIC "index_not_monotonic"
#define KF_P_INDEX_MISMATCH "index_mismatch"
#define KF_P_INDEX_CORRUPT "index_corrupt"
#define KF_P_TIMEINDEX_NOT_MONOTONIC "timeindex_not_monotonic"
#define KF_P_BASE_OFFSET_MISMATCH "base_offset_mismatch"
/* a file the broker takes an offset from by its name (a .log, an index, a
 * .cleaned or .swap file) whose name holds none: it stops the log dir */
#define KF_P_FILE_NAME_INVALID "file_name_invalid"
#define KF_P_SEGMENT_GAP "segment_gap"
#define KF_P_SEGMENT_OVERLAP "segment_overlap"
#define KF_P_CHECKPOINT_INVALID "checkpoint_invalid"
#define KF_P_SNAPSHOT_INVALID "snapshot_invalid"
#define KF_P_TXNINDEX_INVALID "txnindex_invalid"
#define KF_P_METADATA_INVALID "metadata_invalid"
#define KF_P_UNREADABLE "unreadable"
/* the problems of one file past the first KF_PROBLEMS_LISTED_MAX, counted in
 * one problem of this code (its severity the worst of them) */
#define KF_P_PROBLEMS_NOT_LISTED "problems_not_listed"
#define KF_PROBLEMS_LISTED_MAX 1000
#define KF_P_BATCH_TOO_LARGE "batch_too_large"
/* the partition reader (several copies as one log) */
#define KF_P_COPIES_DISAGREE "copies_disagree"
#define KF_P_OFFSETS_LOST "offsets_lost"
/* checkpoints against the log (scan) */
#define KF_P_CHECKPOINT_AHEAD_OF_LOG "checkpoint_ahead_of_log"
#define KF_P_CLEANER_OFFSET_OUT_OF_RANGE "cleaner_offset_out_of_range"
#define KF_P_LEADER_EPOCH_AHEAD_OF_LOG "leader_epoch_ahead_of_log"
#define KF_P_CHECKPOINT_ORPHAN_ENTRY "checkpoint_orphan_entry"
#define KF_P_CHECKPOINT_MISSING_ENTRY "checkpoint_missing_entry"
/* internal-topic records (replay, groups, dump --decode, Connect) */
#define KF_P_UNKNOWN_RECORD_TYPE "unknown_record_type"
#define KF_P_UNDECODED_RECORD "undecoded_record"
#define KF_P_OPEN_TRANSACTION "open_transaction"
/* the consumer's view of committed offsets (offsets, groups) */
#define KF_P_COORDINATOR_LOAD_ERROR "coordinator_load_error"
#define KF_P_OFFSET_OUT_OF_RANGE "offset_out_of_range"
#define KF_P_OFFSET_EXPIRED "offset_expired"
#define KF_P_COMMITTED_OFFSET_DAMAGED "committed_offset_damaged" /* the next read of a group is in damage (warning) */
#define KF_P_BAD_CONNECT_RECORD "bad_connect_record"
/* KRaft metadata (kraft_check.h, metadata.h, kraft.h) */
#define KF_P_SNAPSHOT_INCOMPLETE "snapshot_incomplete"
#define KF_P_SNAPSHOT_MISSING "snapshot_missing"
#define KF_P_TOPIC_ID_MISMATCH "topic_id_mismatch"
#define KF_P_STRAY_PARTITION "stray_partition"
#define KF_P_RECORD_NOT_APPLIED "record_not_applied"
#define KF_P_OPEN_METADATA_TRANSACTION "open_metadata_transaction"
/* transactions against their markers and .txnindex (txns.h) */
#define KF_P_MARKER_MISSING "marker_missing"     /* the coordinator completed it; no marker here (error) */
#define KF_P_TXNINDEX_MISSING "txnindex_missing" /* an ABORT ending a transaction has no .txnindex entry (error) */
#define KF_P_TXNINDEX_EXTRA "txnindex_extra"     /* a .txnindex entry names no ABORT marker (error) */
#define KF_P_BAD_MARKER "bad_marker"             /* a control batch that is not a readable marker (error) */
/* replicas (replicas.h) */
#define KF_P_BAD_SCAN_LINE "bad_scan_line"         /* a scan file's line that is no usable scan line (error) */
#define KF_P_DUPLICATE_REPLICA "duplicate_replica" /* one partition twice on one broker: the first kept (warning) */
/* dump --offset and verify --schema-ids (segment.h, verify.h) */
#define KF_P_OFFSET_NOT_FOUND "offset_not_found" /* no intact batch holds the offset asked for (warning) */
#define KF_P_SCHEMA_FRAMING "schema_framing"     /* a key/value not framed for the Schema Registry (warning) */
/* remote (remote.h) */
#define KF_P_INVALID_TRANSITION "invalid_transition" /* a __remote_log_metadata event the broker drops (warning) */

typedef struct kf_problem {
    const char *code;     /* one of KF_P_* */
    const char *file;     /* the file it is about, when the reporter knows it better
                             than the receiver (a partition's segments); else NULL */
    kf_severity severity;
    uint64_t position;    /* byte position in the file */
    int64_t offset;       /* valid when has_offset */
    bool has_offset;
    uint64_t length;      /* valid when has_length (zero_fill extents) */
    bool has_length;
    char message[240];
    /* The fields some codes add (offset_not_found: last_offset, reason,
     * and in a damaged stretch next_offset; schema_framing: field,
     * first_bytes), in the order they are printed; nextra of them are set. */
    unsigned nextra;
    struct kf_problem_field {
        const char *name;     /* a static string */
        bool is_int;          /* the value is i, else text */
        bool is_null;         /* the value is none (JSON null) */
        int64_t i;
        char text[48];
    } extra[3];
} kf_problem;

/* Append a field to p->extra (ignored past its size): an integer, or text
 * (cut to fit). */
void kf_problem_add_int(kf_problem *p, const char *name, int64_t v);
void kf_problem_add_text(kf_problem *p, const char *name, const char *text);
/* Append a field that has no value here (JSON null). */
void kf_problem_add_null(kf_problem *p, const char *name);

/* The cap on the problems listed of one file: its first
 * KF_PROBLEMS_LISTED_MAX are listed, the rest only counted, and summed up
 * in one problems_not_listed problem (memory and output stay bounded
 * whatever the damage). Zero-initialize one per file. */
typedef struct kf_problem_cap {
    uint64_t listed;                          /* problems listed so far */
    uint64_t hidden_errors, hidden_warnings;  /* those counted since the last flush */
    uint64_t first_hidden;                    /* the position of the first of them */
} kf_problem_cap;

/* Whether p is listed: true while c has listed fewer than
 * KF_PROBLEMS_LISTED_MAX (then one more is), else false and p counted by
 * its severity. */
bool kf_problem_cap_take(kf_problem_cap *c, const kf_problem *p);

/* The problems_not_listed problem of the problems c counted since its last
 * flush, about file (NULL or "": none named), in *p, and those counts
 * emptied: true. False, *p untouched, when c counted none. Its severity is
 * the worst of them, its position the first's, its fields "errors" and
 * "warnings". */
bool kf_problem_cap_flush(kf_problem_cap *c, const char *file, kf_problem *p);

/* Receives each problem as it is found; the struct is only valid during the call. */
typedef void (*kf_problem_fn)(void *ctx, const kf_problem *p);

/* What a secret is shown as when it is not asked for (SCRAM salts and
 * keys, delegation-token ids, password-like config values, secret record
 * values): `metadata`, `dump` and the report alike. */
#define KF_REDACTED "<redacted>"

/* A problem as every command's JSON output has it (kfsck/sys/json_lines.h):
 * {"type":"problem","file","position","offset","code","severity",
 * "message"[,"length"], the fields a caller adds (fields, may be NULL),
 * then p's own extra fields}. file: the file it is about when p names none. */
struct kf_jsonl;
void kf_problem_json(struct kf_jsonl *j, const kf_problem *p, const char *file,
                     void (*fields)(struct kf_jsonl *j, void *ctx), void *ctx);

/* Fill a problem and hand it to fn (no-op when fn is NULL). */
void kf_report(kf_problem_fn fn, void *ctx, const char *code, kf_severity sev,
               uint64_t position, bool has_offset, int64_t offset,
               const char *fmt, ...) __attribute__((format(printf, 8, 9)));

/* A byte count for people: "25.0 MiB", "1.5 GiB" (binary units, one
 * decimal), and below 1 KiB the count followed by below_kib ("512 B" in
 * tables, "512 bytes" in sentences). Always NUL-terminated within cap. */
void kf_format_bytes(uint64_t n, const char *below_kib, char *buf, size_t cap);
/* A duration in ms for people: "850ms", "42s", "31m05s", "2h05m", "3d04h"
 * (negative: "-" first). Always NUL-terminated within cap. */
void kf_format_duration(int64_t ms, char *buf, size_t cap);
/* A time in ms since the epoch for people, in UTC: with iso
 * "2023-11-14T22:13:20.000Z" (the command line's), else
 * "2023-11-14 22:13:20Z"; the number itself when it falls outside the
 * years 0 to 9999. Always NUL-terminated within cap. */
void kf_format_time(int64_t ms, bool iso, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
