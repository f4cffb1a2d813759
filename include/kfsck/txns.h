/* txns.h: open, hanging and aborted transactions of a partition, from its
 * batches alone (`kfsck txns`), and the transaction coordinator's view of
 * them from `__transaction_state`.
 *
 * kf_txns: feed one partition's batches in offset order (as the partition
 * reader kf_part_reader returns them). The transaction rules are those of
 * the broker's producer state (the library's producer-state replay: only a COMMIT or ABORT
 * marker ends a transaction, whatever its epoch; a batch with a newer epoch
 * alone does not). It counts COMMIT and ABORT markers, cross-checks each
 * segment's `.txnindex` against the ABORT markers it should list, and at the
 * end lists the transactions still open, the last stable offset they hold
 * a read_committed consumer at, and which of them hang. Memory is
 * proportional to the open transactions (plus one `.txnindex`, read whole, per
 * copy of the partition), never to the log.
 *
 * kf_txn_coord: replay `__transaction_state` partitions (last write per
 * transactional id wins, a tombstone deletes) to name, for a producer id,
 * its transactional id and the coordinator's latest state. Memory is
 * proportional to the transactional ids.
 *
 * kf_txns_run: both over the inputs, as `kfsck txns` reports them: the
 * coordinator's view of every __transaction_state partition among them
 * (kf_txn_coord_read_inputs), then each data partition's transactions. */
#ifndef KFSCK_TXNS_H
#define KFSCK_TXNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/sys/batch.h"
#include "kfsck/common.h"
#include "kfsck/sys/part_reader.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Its problem codes (KF_P_MARKER_MISSING, ...) are in common.h. */

/* ---- the coordinator's view (__transaction_state) ------------------------ */

/* TransactionState values as stored in TransactionLogValue.TransactionStatus. */
enum {
    KF_TXN_EMPTY = 0, KF_TXN_ONGOING = 1, KF_TXN_PREPARE_COMMIT = 2, KF_TXN_PREPARE_ABORT = 3,
    KF_TXN_COMPLETE_COMMIT = 4, KF_TXN_COMPLETE_ABORT = 5, KF_TXN_DEAD = 6, KF_TXN_PREPARE_EPOCH_FENCE = 7,
};

/* transaction.max.timeout.ms's default (15 minutes): the longest
 * transaction.timeout.ms a broker accepts by default, and what a
 * transaction whose own timeout is unknown is measured against. */
#define KF_TXN_MAX_TIMEOUT_MS_DEFAULT 900000

/* "Empty", "Ongoing", ... as Kafka names them; NULL for another number. */
const char *kf_txn_state_name(int state);

typedef struct kf_txn_coord kf_txn_coord;

typedef struct kf_txn_coord_entry {
    const char *transactional_id;   /* NUL-terminated, owned by the replay */
    int64_t producer_id;
    int16_t producer_epoch;
    int state;                      /* KF_TXN_* (as stored; may be another number) */
    int32_t timeout_ms;
    int64_t last_update_ms;
    int64_t start_ms;
    int32_t source_partition;       /* the __transaction_state partition and offset it came from */
    int64_t source_offset;
} kf_txn_coord_entry;

/* KF_OK with *c set, or KF_ERR_NOMEM with *c NULL. */
int kf_txn_coord_new(kf_txn_coord **c);
void kf_txn_coord_free(kf_txn_coord *c);

/* Replay one intact batch of __transaction_state-<partition> (each
 * partition's batches in offset order). Its records are read with buf
 * (decompression capped at max_bytes); records that cannot be decoded are
 * reported through fn ("bad_record", or "undecoded_record" /
 * "unknown_record_type" warnings for versions and types this build does not
 * know) and skipped. Returns KF_OK or KF_ERR_NOMEM. */
int kf_txn_coord_batch(kf_txn_coord *c, int32_t partition, kf_batch *b, kf_buf *buf, size_t max_bytes,
                       kf_problem_fn fn, void *ctx);

/* Transactional ids known (tombstoned ones are gone). */
size_t kf_txn_coord_count(const kf_txn_coord *c);
/* The transactional id whose latest state names producer id pid, or NULL
 * (several: the one written last). Valid until the next kf_txn_coord_batch. */
const kf_txn_coord_entry *kf_txn_coord_find(kf_txn_coord *c, int64_t pid);

/* ---- one partition's transactions ---------------------------------------- */

#define KF_TXNS_OPTIONS_VERSION 1
#define KF_TXNS_OPTIONS_INIT KF_OPTIONS_INIT_(kf_txns_opts, KF_TXNS_OPTIONS_VERSION)
typedef struct kf_txns_opts {
    unsigned version;         /* KF_TXNS_OPTIONS_VERSION (kfsck.h: options) */
    size_t max_batch_bytes;       /* decompression cap for control records (0: the default) */
    bool has_hanging_ms;          /* hanging_ms is given; else KF_TXN_MAX_TIMEOUT_MS_DEFAULT */
    int64_t hanging_ms;           /* (Kafka's transaction.max.timeout.ms default), the default */
    kf_txn_coord *coord;          /* the coordinator's view, or NULL when none was given */
    /* Problems: .txnindex entries missing or extra, a .txnindex or producer
     * snapshot that cannot be used, unreadable markers, missing markers. */
    kf_problem_fn problem_fn;
    void *problem_ctx;
} kf_txns_opts;

/* Fills *o as KF_TXNS_OPTIONS_INIT does: the version, every other field zero (its
 * default). Every function here taking a kf_txns_opts: it may be NULL
 * (the defaults); its version must be 1..KF_TXNS_OPTIONS_VERSION, else
 * KF_ERR_UNSUPPORTED (kfsck.h, "Options"). */
void kf_txns_opts_init(kf_txns_opts *o);

/* An open transaction as kf_txns_finish reports it. */
typedef struct kf_txn_report {
    kf_open_txn txn;              /* producer, epochs, offsets, batches, records, timestamps */
    bool has_age;
    int64_t age_ms;               /* the partition's newest batch max timestamp - txn.first_timestamp */
    bool has_idle;
    int64_t idle_ms;              /* the partition's newest batch max timestamp - txn.last_timestamp */
    bool hanging;                 /* idle_ms > hanging_ms */
    /* With a coordinator view (opts.coord): */
    const kf_txn_coord_entry *coordinator; /* the producer id's transactional id and state, or NULL */
    bool marker_missing;          /* the coordinator completed it (CompleteCommit/CompleteAbort at an
                                     epoch not older than the transaction's) but no marker is here */
} kf_txn_report;

typedef void (*kf_txn_report_fn)(void *ctx, const kf_txn_report *r);

typedef struct kf_txns_result {
    bool has_log_end;
    int64_t log_end_offset;       /* last offset + 1 of the last batch fed (none fed: the last segment's base) */
    bool has_last_stable;
    int64_t last_stable_offset;   /* the oldest open transaction's first offset, else the log end */
    uint64_t open_transactions, hanging_transactions;
    uint64_t committed_transactions, aborted_transactions; /* COMMIT and ABORT markers */
    uint64_t markers_missing, txnindex_missing, txnindex_extra, bad_markers;
    bool has_newest_timestamp;
    int64_t newest_timestamp;     /* the highest batch max timestamp: the partition's time line */
    bool has_start;
    int64_t start_offset;         /* the first offset replayed (the snapshot's, when one was used) */
    const char *snapshot;         /* the producer snapshot the replay started from, or NULL */
    bool start_unknown;           /* the log starts past 0 with no usable snapshot there: a
                                     transaction begun earlier is seen from its first later batch */
    bool incomplete;              /* damage was skipped: the answer may miss transactions or markers */
} kf_txns_result;

typedef struct kf_txns kf_txns;

/* Begin a partition. p's copies name the .txnindex files to check (beside
 * each segment) and the producer snapshot to start from (`<base>.snapshot`
 * beside the first segment, when the log starts past offset 0). p must
 * outlive the job. KF_OK or KF_ERR_NOMEM. */
int kf_txns_open(kf_txns **t, const kf_partition *p, const kf_txns_opts *o);

/* Feed the next batch of the partition (offset order). file: the segment it
 * was read from (kf_part_reader_file), which says where its .txnindex entry
 * belongs; NULL when unknown. KF_OK or KF_ERR_NOMEM. */
int kf_txns_batch(kf_txns *t, const kf_batch *b, const char *file);

/* End of the partition. damaged: the reader skipped damage that no copy
 * covers (kf_part_result.uncovered or .unreadable). Finishes the .txnindex
 * checks, hands each open transaction, oldest first, to fn (may be NULL),
 * reports missing markers, and fills *res (may be NULL; its snapshot string
 * is valid until kf_txns_close). KF_OK or KF_ERR_NOMEM. */
int kf_txns_finish(kf_txns *t, bool damaged, kf_txn_report_fn fn, void *ctx, kf_txns_result *res);

/* Free t (NULL: nothing), made by kf_txns_open or kf_txns_read. */
void kf_txns_close(kf_txns *t);

/* ---- the drivers: a partition read whole --------------------------------- */

/* Feed c every batch of p, a __transaction_state partition, read with a
 * reader opened with ro (its cap also caps the records' decompression);
 * problems of the records go to fn. *res (may be NULL): the reader's
 * result. KF_OK or KF_ERR_NOMEM. */
int kf_txn_coord_read(kf_txn_coord *c, const kf_partition *p, const kf_part_reader_opts *ro, kf_problem_fn fn,
                      void *ctx, kf_part_result *res);

/* The transactions of p, a data partition, read with a reader opened with
 * ro: kf_txns_open, every batch, kf_txns_finish (damaged when the reader
 * left damage uncovered or a segment unreadable), each open transaction to
 * fn. *pres (may be NULL): the reader's result. *t holds what *res points
 * to: close it with kf_txns_close after (also on failure). KF_OK or
 * KF_ERR_NOMEM. */
int kf_txns_read(kf_txns **t, const kf_partition *p, const kf_txns_opts *o, const kf_part_reader_opts *ro,
                 kf_txn_report_fn fn, void *ctx, kf_txns_result *res, kf_part_result *pres);

/* ---- the job over the inputs --------------------------------------------- */

/* The topic the transaction coordinator writes its log to. */
#define KF_TXN_STATE_TOPIC "__transaction_state"

/* The coordinator's view of the __transaction_state partitions among the
 * inputs. */
typedef struct kf_txn_coord_inputs {
    kf_txn_coord *coord;      /* NULL when there is no such partition among the inputs */
    int32_t *partitions;      /* the partitions replayed (-1: unknown), in the inputs' order */
    size_t npartitions;
    bool incomplete;          /* damage no copy covers was skipped: transactional ids may be missing */
    bool unreadable;          /* a segment could not be read */
} kf_txn_coord_inputs;

/* Replay every __transaction_state partition of in (kf_txn_coord_read,
 * each with a reader opened with ro; the records' problems to fn) into *v,
 * which is zeroed first and freed with kf_txn_coord_inputs_free (also on
 * failure). KF_OK, KF_ERR_NOMEM or KF_ERR_UNSUPPORTED (ro's version). */
int kf_txn_coord_read_inputs(kf_txn_coord_inputs *v, const kf_inputs *in, const kf_part_reader_opts *ro,
                             kf_problem_fn fn, void *ctx);
void kf_txn_coord_inputs_free(kf_txn_coord_inputs *v);

/* The data partitions of in that kf_txns_run reads: every partition but
 * those of __transaction_state and __cluster_metadata. */
size_t kf_txns_data_partitions(const kf_inputs *in);

#define KF_TXNS_RUN_OPTIONS_VERSION 1
#define KF_TXNS_RUN_OPTIONS_INIT KF_OPTIONS_INIT_(kf_txns_run_opts, KF_TXNS_RUN_OPTIONS_VERSION)
typedef struct kf_txns_run_opts {
    unsigned version;             /* KF_TXNS_RUN_OPTIONS_VERSION (kfsck.h: options) */
    kf_part_reader_opts read;     /* every partition's reader (its cap also caps the records'
                                     decompression; its version may stay 0) */
    bool has_hanging_ms;          /* as kf_txns_opts: else 15 minutes */
    int64_t hanging_ms;
    /* Problems of the records, of the coordinator replay and of the txns
     * job (a .txnindex or producer snapshot that cannot be used, missing
     * markers); those of the copies go to read.problem_fn. */
    kf_problem_fn problem_fn;
    void *problem_ctx;
    /* The coordinator's view once every __transaction_state partition is
     * replayed (not called when there is none among the inputs). */
    void (*coordinator_fn)(void *ctx, const kf_txn_coord_inputs *v);
    /* Each data partition once read, in the inputs' order: its open
     * transactions, oldest first, and its result (valid during the call). */
    void (*partition_fn)(void *ctx, const kf_partition *p, const kf_txn_report *open, size_t nopen,
                         const kf_txns_result *res);
    void *ctx;
} kf_txns_run_opts;

/* Fills *o as KF_TXNS_RUN_OPTIONS_INIT does. kf_txns_run: o may be NULL (the
 * defaults); its version must be 1..KF_TXNS_RUN_OPTIONS_VERSION, else
 * KF_ERR_UNSUPPORTED. */
void kf_txns_run_opts_init(kf_txns_run_opts *o);

/* The sums over the data partitions kf_txns_run read. */
typedef struct kf_txns_totals {
    uint64_t partitions;
    uint64_t open_transactions, hanging_transactions, committed_transactions, aborted_transactions;
    uint64_t markers_missing;
    uint64_t txnindex_problems;   /* .txnindex entries missing or extra */
    uint64_t incomplete_partitions;
    bool unreadable;              /* a segment, .txnindex or producer snapshot could not be read */
} kf_txns_totals;

/* `kfsck txns` over the inputs: the coordinator's view of the
 * __transaction_state partitions among them first (kf_txn_coord_read_inputs,
 * then coordinator_fn), then every data partition (kf_txns_read, with that
 * view as kf_txns_opts.coord, then partition_fn). *tot (may be NULL): the
 * sums. KF_OK, KF_ERR_NOMEM or KF_ERR_UNSUPPORTED (options). */
int kf_txns_run(const kf_inputs *in, const kf_txns_run_opts *o, kf_txns_totals *tot);

/* txns' JSON lines (kfsck/sys/json_lines.h), as `kfsck txns --json` has
 * them: the coordinator's view (a summary line); a partition's
 * "open_transaction" lines (with the coordinator's transactional id and
 * state when coord: a __transaction_state partition was among the inputs)
 * then its "partition" line; the closing summary with the run's errors and
 * warnings. */
struct kf_jsonl;
void kf_txns_coordinator_json(struct kf_jsonl *j, const kf_txn_coord_inputs *v);
void kf_txns_partition_json(struct kf_jsonl *j, const kf_partition *p, const kf_txn_report *open, size_t nopen,
                            bool coord, const kf_txns_result *res);
void kf_txns_summary_json(struct kf_jsonl *j, const kf_txns_totals *t, uint64_t errors, uint64_t warnings);

#ifdef __cplusplus
}
#endif

#endif
