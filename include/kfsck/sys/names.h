/* names.h: what a file or directory in a Kafka log dir is, by its name. */
#ifndef KFSCK_NAMES_H
#define KFSCK_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kf_file_kind {
    KF_FILE_UNKNOWN = 0,
    KF_FILE_LOG,              /* NNN.log */
    KF_FILE_INDEX,            /* NNN.index */
    KF_FILE_TIMEINDEX,        /* NNN.timeindex */
    KF_FILE_TXNINDEX,         /* NNN.txnindex */
    KF_FILE_PRODUCER_SNAPSHOT,         /* NNN.snapshot (producer state) */
    KF_FILE_OFFSET_CHECKPOINT,/* recovery-point-, log-start-, replication-, cleaner-offset-checkpoint */
    KF_FILE_LEADER_EPOCH,     /* leader-epoch-checkpoint */
    KF_FILE_PARTITION_METADATA,
    KF_FILE_META_PROPERTIES,
    KF_FILE_KRAFT_CHECKPOINT, /* NNN-EEE.checkpoint: KRaft snapshot, record batches */
    KF_FILE_BOOTSTRAP_CHECKPOINT, /* bootstrap.checkpoint (KRaft log-dir root): record batches
                                     in the snapshot layout; base_offset 0 */
    KF_FILE_QUORUM_STATE,     /* quorum-state: the KRaft election state (JSON) */
} kf_file_kind;

typedef struct kf_name_info {
    kf_file_kind kind;
    int64_t base_offset;   /* from the 20-digit prefix, -1 if none */
    const char *suffix;    /* ".deleted", ".cleaned", ".swap" or "" */
} kf_name_info;

/* Classify a file by its base name (no directory part). */
kf_name_info kf_classify_name(const char *basename);
/* Human name of a kind: "log", "index", "timeindex", ... */
const char *kf_file_kind_name(kf_file_kind k);

/* The file of another kind beside a segment: "dir/<stem>.log[suffix]" ->
 * "dir/<stem><ext>[suffix]", e.g. ".txnindex". A broker suffix (.deleted,
 * .cleaned, .swap) is kept: the broker renames all of a segment's files
 * together, and the unsuffixed file, when there is one, belongs to another
 * (live) segment. Malloc'd; NULL when log_path does not end in ".log" (with
 * a broker suffix or none) or out of memory. */
char *kf_sibling_path(const char *log_path, const char *ext);

/* Java's Long.parseLong of s[0..n): an optional sign, then decimal digits
 * within a long's range. */
bool kf_java_long(const char *s, size_t n, int64_t *v);
/* LogFileUtils.offsetFromFileName: the text before name's first '.' read by
 * Long.parseLong ("123.log" is at 123, as "00000000000000000123.log").
 * False when there is no '.' or the text does not parse (the broker's
 * NumberFormatException); *prefix_len says how long the text was (the whole
 * name when there is no '.'). */
bool kf_name_offset(const char *name, int64_t *offset, size_t *prefix_len);
/* Whether LogLoader takes an offset from this file name as it loads a
 * partition dir: a .log, .index, .timeindex or .txnindex file, or any
 * .cleaned or .swap one (a name whose offset then does not parse stops the
 * log dir: kf_name_offset). */
bool kf_name_carries_offset(const char *name);
/* KRaft's Snapshots.parse of a file name in the metadata log's directory:
 * a name ending .checkpoint (.checkpoint.part, .checkpoint.deleted) is
 * <end offset>-<epoch> by position, Long.parseLong of its first 20
 * characters and Integer.parseInt of the 10 after the 21st. False when such
 * a name does not parse (the node's NumberFormatException or
 * StringIndexOutOfBoundsException as it opens the log); true for any other
 * name. */
bool kf_snapshot_name_parses(const char *name);

/* Split a partition directory name "<topic>-<partition>" (also with the
 * ".<uuid>-delete/-future/-stray" suffixes; trailing slashes, as
 * kf_path_base leaves them, are ignored). Returns true when it is one;
 * topic is copied (truncated to topic_cap-1). */
bool kf_parse_partition_dir(const char *basename, char *topic, size_t topic_cap, int32_t *partition);

#ifdef __cplusplus
}
#endif

#endif
