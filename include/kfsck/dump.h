/* dump.h: what `kfsck dump` shows, ready to be printed. The PATHs are
 * walked as dump walks them: a file by what its name says (a file whose
 * name says nothing but whose first bytes frame as a record batch, as a
 * segment), a directory by the segments in it and in the partition and
 * data directories below it, KF_DUMP_MAX_DEPTH levels down, in name order
 * (a partition's segments in offset order); the other files of a
 * directory (indexes, snapshots, checkpoints, metadata files) are dumped
 * only when named as PATHs themselves. A segment (or a KRaft snapshot)
 * gives its batches and, with records, its records, those of Kafka's
 * internal topics decoded; with include_damaged its damaged stretches too,
 * and the records of a batch that frames but fails its CRC as far as they
 * decode. An index, .txnindex, producer snapshot, checkpoint,
 * partition.metadata, meta.properties or quorum-state gives its entries,
 * then the problems verify finds in it. With a range
 * (dump --offset, --from-offset/--to-offset) a partition directory or a
 * segment is read for those offsets only (offset_range.h). Everything goes
 * to the caller's callbacks, in the order of the PATHs and, within a file,
 * in file order; nothing is printed. */
#ifndef KFSCK_DUMP_H
#define KFSCK_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/sys/batch.h"
#include "kfsck/sys/checkpoint.h"
#include "kfsck/common.h"
#include "kfsck/sys/coord.h"
#include "kfsck/sys/decoder.h"
#include "kfsck/sys/index.h"
#include "kfsck/sys/kraft.h"
#include "kfsck/sys/names.h"
#include "kfsck/sys/offset_range.h"
#include "kfsck/sys/producer_snapshot.h"
#include "kfsck/sys/quorum_state.h"
#include "kfsck/sys/segment.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How far below a directory PATH the walk goes: its partition and data
 * directories (1), and the partition directories of a data directory in
 * it (2). */
#define KF_DUMP_MAX_DEPTH 2

/* A file about to be dumped (it could be opened and read). */
typedef struct kf_dump_file {
    const char *path;
    kf_name_info name;        /* what its name says; a segment named otherwise: KF_FILE_LOG,
                                 base offset -1 */
    bool range;               /* a segment read for the range only (kf_dump_opts.range) */
    uint64_t entries;         /* an offset or time index: its entries (0: it is empty) */
} kf_dump_file;

/* What decoded a record (kf_dump_record.decoded). */
typedef enum kf_dump_decoded {
    KF_DUMP_UNDECODED = 0,    /* not decoded (no decoder, a Connect record, a control batch) */
    KF_DUMP_COORD,            /* kf_coord_decode: coord (offsets, txn, share) */
    KF_DUMP_KRAFT,            /* kf_kraft_decode: kraft (metadata, remote) */
    KF_DUMP_KRAFT_CONTROL,    /* kf_kraft_control_decode: kraft (a KRaft control record in any log) */
} kf_dump_decoded;

/* One record of a batch, with what the library made of it. */
typedef struct kf_dump_record {
    const char *file;
    const kf_batch *batch;
    const kf_record *record;
    /* A record of a damaged batch (include_damaged with records: a batch
     * that frames but fails its CRC, decoded as far as it goes; its bytes
     * are not to be trusted, and its decoding reports no problem). Without
     * show_secrets, one of a file that may hold secrets (the KRaft metadata
     * log and snapshots) is not decoded and redact is set: a damaged byte
     * may hide what marks a secret. */
    bool damaged;
    bool is_control;          /* a record of a control batch that parses: control */
    kf_control control;
    /* With kf_dump_opts.payload and not show_secrets: the record's raw value
     * would show a secret (a KRaft metadata record whose decoded fields hold
     * one, or one of the kinds that hold one cut short): show "<redacted>"
     * instead of its value's bytes. */
    bool redact;
    kf_decoder decoder;       /* the file's decoder (KF_DECODE_CONNECT: the printer's to embed) */
    kf_dump_decoded decoded;
    int decode_rc;            /* the decoder's return code */
    const kf_dtree *tree;     /* the decoded fields: coord's or kraft's roots index it */
    kf_coord_record coord;    /* KF_DUMP_COORD */
    kf_kraft_record kraft;    /* KF_DUMP_KRAFT, KF_DUMP_KRAFT_CONTROL */
} kf_dump_record;

/* One entry of a file that is not a segment (kf_dump_entry.kind). */
typedef enum kf_dump_entry_kind {
    KF_DUMP_INDEX_ENTRY,        /* .index: offset, position */
    KF_DUMP_TIME_INDEX_ENTRY,   /* .timeindex: timestamp, offset */
    KF_DUMP_TXN_ENTRY,          /* .txnindex: txn */
    KF_DUMP_SNAPSHOT,           /* a producer snapshot's header: snapshot (its size says how
                                   far it reads), before its producers */
    KF_DUMP_PRODUCER,           /* a producer of a snapshot: snapshot, producer */
    KF_DUMP_CHECKPOINT_ENTRY,   /* an offset checkpoint's entry: checkpoint */
    KF_DUMP_LEADER_EPOCH,       /* a leader-epoch-checkpoint's entry: checkpoint */
    KF_DUMP_PARTITION_METADATA, /* partition.metadata: parsed, partition_metadata */
    KF_DUMP_META_PROPERTIES,    /* meta.properties: meta */
    KF_DUMP_QUORUM_STATE,       /* quorum-state: quorum */
} kf_dump_entry_kind;

typedef struct kf_dump_entry {
    kf_dump_entry_kind kind;
    const char *file;
    int64_t offset, position, timestamp;          /* the index entries */
    kf_txn_entry txn;
    const kf_producer_snapshot *snapshot;
    kf_producer_snapshot_entry producer;
    const kf_checkpoint_entry *checkpoint;
    bool parsed;                                  /* partition.metadata parses */
    const kf_partition_metadata *partition_metadata;
    const kf_meta_properties *meta;
    const kf_quorum_state *quorum;
} kf_dump_entry;

#define KF_DUMP_OPTIONS_VERSION 1
#define KF_DUMP_OPTIONS_INIT KF_OPTIONS_INIT_(kf_dump_opts, KF_DUMP_OPTIONS_VERSION)
typedef struct kf_dump_opts {
    unsigned version;           /* KF_DUMP_OPTIONS_VERSION (kfsck.h: options) */
    bool records;               /* record_fn per record */
    bool payload;               /* the records' raw keys and values will be shown:
                                   decide kf_dump_record.redact */
    bool show_secrets;          /* never redact */
    /* Every file's records take `decoder`; else (the default) each file's
     * own (kf_decoder_for_path). KRaft control records are decoded in every
     * log unless the decoder is KF_DECODE_NONE. */
    bool decoder_set;
    kf_decoder decoder;
    /* Only the offsets first..last (both included) of each partition
     * directory and segment file (kf_range_read), else every batch. Other
     * files are not dumped then. */
    bool range;
    int64_t first, last;
    bool no_seek;               /* range: read each segment from its start (kf_range_opts) */
    uint64_t max_bytes;         /* read only the first max_bytes of each segment (0: all);
                                   not with range */
    size_t max_batch_bytes;     /* decompression cap per batch (0: the default) */
    unsigned threads;           /* reader threads (kf_segment_scan_opts.threads) */
    size_t chunk_bytes;         /* reader chunk size (0: the default) */
    /* damaged_fn per damaged stretch; with records, the records of a
     * stretch's batch that frames but fails its CRC follow it, as far as
     * they decode (kf_damaged_records; in a range only those inside it),
     * to record_fn with kf_dump_record.damaged set. */
    bool include_damaged;
    void *ctx;                  /* of every callback below; each may be NULL */
    /* A file about to be dumped, and the end of its reading. */
    void (*file_fn)(void *ctx, const kf_dump_file *f);
    void (*file_done_fn)(void *ctx, const kf_dump_file *f);
    /* Progress through a large segment (not with range). */
    void (*progress_fn)(void *ctx, const char *path, uint64_t position, uint64_t size);
    /* Each intact batch, each record (records), each entry of another
     * file; a batch or record callback returning non-zero stops the file. */
    int (*batch_fn)(void *ctx, const char *file, const kf_batch *b);
    int (*record_fn)(void *ctx, const kf_dump_record *r);
    void (*entry_fn)(void *ctx, const kf_dump_entry *e);
    /* include_damaged: each damaged stretch, after its problems (d->file
     * set). redact: without show_secrets, the stretch lies in a file that
     * may hold secrets (the KRaft metadata log and snapshots): show
     * "<redacted>" instead of its bytes. */
    void (*damaged_fn)(void *ctx, const kf_damaged *d, bool redact);
    /* Every problem (p->file set): damage, a record that does not decode
     * (after its record), what verify finds in a small file. */
    kf_problem_fn problem_fn;
    /* Each PATH or file that cannot be used ("kfsck: <path>: <what>"), and
     * each file skipped because kfsck does not know its kind by its name. */
    void (*path_error_fn)(void *ctx, const char *path, int err_no, const char *what);
    /* range: after each log is read, what the read did (KFSCK_RANGE_STATS). */
    void (*range_done_fn)(void *ctx, const char *label, const kf_range_result *r);
} kf_dump_opts;

/* Fills *o as KF_DUMP_OPTIONS_INIT does: the version, every other field
 * zero (its default). Every function here taking a kf_dump_opts: it may be
 * NULL (the defaults); its version must be 1..KF_DUMP_OPTIONS_VERSION,
 * else KF_ERR_UNSUPPORTED (kfsck.h, "Options"). */
void kf_dump_opts_init(kf_dump_opts *o);

/* Counts over everything dumped; add up across calls (zero it first). */
typedef struct kf_dump_result {
    uint64_t errors, warnings;  /* problems passed on */
    uint64_t failed;            /* paths that could not be used (path_error_fn), skipped
                                   files not counted */
    uint64_t skipped;           /* files of a kind kfsck does not know, skipped */
} kf_dump_result;

/* Dump paths. KF_OK (what could not be used is in res->failed), KF_ERR_NOMEM
 * or KF_ERR_UNSUPPORTED (o's version). */
int kf_dump_paths(char *const *paths, size_t n, const kf_dump_opts *o, kf_dump_result *res);

#ifdef __cplusplus
}
#endif

#endif
