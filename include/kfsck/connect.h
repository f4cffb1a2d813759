/* connect.h: Kafka Connect source-connector offsets rebuilt from the Connect
 * offsets topic (KafkaOffsetBackingStore): keys are JSON `["connector",
 * {partition}]`, values JSON `{offset}`; the last write wins per exact key
 * bytes, a null value deletes, and the transactional writes of exactly-once
 * source connectors apply at their COMMIT marker and are dropped at ABORT.
 * Fed each partition's batches in offset order (from the partition reader);
 * memory is one entry per distinct key. */
#ifndef KFSCK_CONNECT_H
#define KFSCK_CONNECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/sys/batch.h"
#include "kfsck/common.h"
#include "kfsck/sys/part_reader.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kf_connect kf_connect;

#define KF_CONNECT_OPTIONS_VERSION 1
#define KF_CONNECT_OPTIONS_INIT KF_OPTIONS_INIT_(kf_connect_opts, KF_CONNECT_OPTIONS_VERSION)
typedef struct kf_connect_opts {
    unsigned version;         /* KF_CONNECT_OPTIONS_VERSION (kfsck.h: options) */
    size_t max_batch_bytes;   /* decompression cap per batch (0: KF_DEFAULT_MAX_BATCH_BYTES) */
    /* records that are not Connect JSON (bad_connect_record, warning) and
     * batches whose records cannot be read (error) */
    kf_problem_fn problem_fn;
    void *problem_ctx;
} kf_connect_opts;

/* Fills *o as KF_CONNECT_OPTIONS_INIT does: the version, every other field zero (its
 * default). Every function here taking a kf_connect_opts: it may be NULL
 * (the defaults); its version must be 1..KF_CONNECT_OPTIONS_VERSION, else
 * KF_ERR_UNSUPPORTED (kfsck.h, "Options"). */
void kf_connect_opts_init(kf_connect_opts *o);
/* KF_OK with *c set, or KF_ERR_UNSUPPORTED (o's version) or KF_ERR_NOMEM
 * with *c NULL. */
int kf_connect_new(kf_connect **c, const kf_connect_opts *o);
void kf_connect_free(kf_connect *c);

/* The partition the next batches come from. Writes staged in a
 * transaction of the previous partition that never ended are dropped (and
 * counted: kf_connect_open_writes). */
void kf_connect_partition(kf_connect *c, int32_t partition);
/* One intact batch. KF_OK or KF_ERR_NOMEM. */
int kf_connect_batch(kf_connect *c, kf_batch *b);

/* One connector's offset for one source partition: the JSON bytes as
 * stored (connector: a JSON string, quotes included). */
typedef struct kf_connect_offset {
    const uint8_t *connector, *partition, *offset;
    size_t connector_len, partition_len, offset_len;
    int32_t source_partition;  /* the offsets topic's partition */
    int64_t source_offset;     /* the record that set it */
} kf_connect_offset;

/* The table, sorted by key bytes (after the last batch; call
 * kf_connect_partition(c, -1) first to drop an unfinished transaction):
 * KF_OK with *out and *count (valid until the next call on c), or
 * KF_ERR_NOMEM. */
int kf_connect_offsets(kf_connect *c, const kf_connect_offset **out, size_t *count);

/* Writes left in transactions with no COMMIT or ABORT (not applied), and
 * batches skipped because their records could not be read. */
uint64_t kf_connect_open_writes(const kf_connect *c);
uint64_t kf_connect_bad_batches(const kf_connect *c);

/* ---- the Connect offsets topic among the inputs -------------------------- */

#define KF_CONNECT_TOPIC_OPTIONS_VERSION 1
#define KF_CONNECT_TOPIC_OPTIONS_INIT KF_OPTIONS_INIT_(kf_connect_topic_opts, KF_CONNECT_TOPIC_OPTIONS_VERSION)
typedef struct kf_connect_topic_opts {
    unsigned version;         /* KF_CONNECT_TOPIC_OPTIONS_VERSION (kfsck.h: options) */
    const char *topic;          /* the offsets topic's name (NULL: "connect-offsets") */
    /* the readers of its partitions: max_batch_bytes, tuning, and the
     * problems met in the copies */
    kf_part_reader_opts read;
} kf_connect_topic_opts;

/* Fills *o as KF_CONNECT_TOPIC_OPTIONS_INIT does: the version, every other field zero (its
 * default). Every function here taking a kf_connect_topic_opts: it may be NULL
 * (the defaults); its version must be 1..KF_CONNECT_TOPIC_OPTIONS_VERSION, else
 * KF_ERR_UNSUPPORTED (kfsck.h, "Options"). */
void kf_connect_topic_opts_init(kf_connect_topic_opts *o);

typedef struct kf_connect_topic_result {
    uint64_t partitions;        /* partitions of the topic read */
    uint64_t damaged;           /* damaged ranges no copy covered, plus partitions with a segment unreadable */
} kf_connect_topic_result;

/* Feed c every partition of o->topic among in, each in offset order over
 * the union of its copies, then end the last one (kf_connect_partition(c,
 * -1)). KF_OK or KF_ERR_NOMEM. */
int kf_connect_read_topic(kf_connect *c, const kf_inputs *in, const kf_connect_topic_opts *o,
                          kf_connect_topic_result *res);

/* n bytes at p are exactly one JSON value (strict RFC 8259). */
bool kf_json_valid(const uint8_t *p, size_t n);

#ifdef __cplusplus
}
#endif

#endif
