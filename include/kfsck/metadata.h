/* metadata.h: the cluster as a KRaft broker loads it from its metadata
 * partition (Kafka's MetadataLoader and image deltas): the newest intact
 * snapshot at or below the target offset, then every later intact batch of
 * the __cluster_metadata-0 log (several copies read as one log by the
 * partition reader) up to the target, each record applied by the controller's
 * rules (Kafka's image deltas). Damaged batches, undecodable records and
 * records that cannot be applied are reported through the problem callback
 * and skipped. Or (kf_metadata_opts.as_the_node) the image the node itself
 * loads from a latest snapshot cut short, and the first record its
 * metadata loader fails on.
 *
 * Memory is proportional to the cluster (brokers, topics, partitions,
 * configs, ...), never to the log: records are applied one at a time; an
 * open metadata transaction is kept as a copy of the image from before it.
 * The library never prints. */
#ifndef KFSCK_METADATA_H
#define KFSCK_METADATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/common.h"
#include "kfsck/partition.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- what a metadata job reads ------------------------------------------- */

/* A KRaft snapshot file: <end offset>-<epoch>.checkpoint, or a bootstrap
 * file (bootstrap.checkpoint, or the 0-0 snapshot), whose records are the
 * cluster's initial state rather than a snapshot of the log. */
typedef struct kf_kraft_snapshot_file {
    char *path;
    int64_t end_offset;       /* the first offset it does not cover (0 for bootstrap files) */
    int32_t epoch;
    bool bootstrap;
    bool loose;               /* named on the command line (not found in a directory) */
} kf_kraft_snapshot_file;

/* The KRaft metadata files found under a set of PATHs: the copies of
 * __cluster_metadata-0 (their .log segments, read as one log), its KRaft
 * snapshots (neither .part nor .deleted), the quorum-state files and the
 * data dirs' meta.properties. */
typedef struct kf_kraft_inputs {
    kf_inputs all;            /* the metadata log as kf_inputs_collect found it (owns the copies) */
    kf_partition log;         /* every copy of the metadata log: its copies point into `all` */
    kf_kraft_snapshot_file *snapshots;
    size_t nsnapshots;
    char **dirs;              /* the __cluster_metadata-0 directories */
    size_t ndirs;
    char **quorum_states;     /* quorum-state files */
    size_t nquorum;
    char **meta_properties;   /* meta.properties of the data dirs holding the metadata log */
    size_t nmeta;
} kf_kraft_inputs;

/* Collect from PATHs: a __cluster_metadata-0 directory, a data dir holding
 * one, or single .log / .checkpoint / bootstrap.checkpoint files of it.
 * Other partitions are ignored. Returns as kf_inputs_collect. Free with
 * kf_kraft_inputs_free. */
int kf_kraft_inputs_collect(kf_kraft_inputs *ki, char *const *paths, size_t n, kf_path_error_fn fn, void *ctx);
void kf_kraft_inputs_free(kf_kraft_inputs *ki);
/* Any metadata log segment or snapshot among them. */
bool kf_kraft_inputs_found(const kf_kraft_inputs *ki);

/* ---- the image ----------------------------------------------------------- */

typedef struct kf_md_ints {
    int32_t *v;
    uint32_t n;
} kf_md_ints;

typedef struct kf_md_uuids {
    uint8_t (*v)[16];
    uint32_t n;
} kf_md_uuids;

typedef struct kf_md_listener {
    char *name, *host;
    int32_t port;              /* uint16 on disk */
    int16_t security_protocol; /* -1 for KRaft voters (not recorded) */
} kf_md_listener;

typedef struct kf_md_version_range {
    char *name;
    int16_t min, max;
} kf_md_version_range;

typedef struct kf_md_broker {
    int32_t id;
    int64_t epoch;
    uint8_t incarnation_id[16];
    bool fenced, in_controlled_shutdown, is_migrating_zk_broker;
    char *rack;                /* NULL: none */
    kf_md_listener *listeners;
    uint32_t nlisteners;
    kf_md_version_range *features;
    uint32_t nfeatures;
    kf_md_uuids log_dirs;
    bool has_cordoned;         /* RegisterBroker v4+ / BRC v3 set them */
    kf_md_uuids cordoned_log_dirs;
} kf_md_broker;

typedef struct kf_md_controller {
    int32_t id;
    uint8_t incarnation_id[16];
    bool zk_migration_ready;
    kf_md_listener *listeners;
    uint32_t nlisteners;
    kf_md_version_range *features;
    uint32_t nfeatures;
} kf_md_controller;

typedef struct kf_md_partition {
    int32_t id;
    kf_md_ints replicas, isr, removing_replicas, adding_replicas, elr, last_known_elr;
    bool has_directories;      /* some record set them (PartitionRecord v1+, a change's Directories) */
    kf_md_uuids directories;   /* as Kafka keeps them: null or all-MIGRATING = MIGRATING per replica */
    int32_t leader;            /* -1: none */
    int32_t leader_epoch, partition_epoch;
    int8_t leader_recovery_state;
} kf_md_partition;

typedef struct kf_md_topic {
    char *name;
    uint8_t id[16];
    kf_md_partition *parts;    /* sorted by id */
    uint32_t nparts, cap;
} kf_md_topic;

typedef struct kf_md_config {
    int8_t resource_type;      /* 2 topic, 4 broker, 8 broker logger, 16 client metrics, 32 group */
    char *resource_name;
    char *name;
    char *value;
} kf_md_config;

typedef struct kf_md_feature {
    char *name;
    int16_t level;
} kf_md_feature;

typedef struct kf_md_quota_entity {
    char *type;
    char *name;                /* NULL: the default entity of that type */
} kf_md_quota_entity;

typedef struct kf_md_quota {
    kf_md_quota_entity *entity; /* sorted by type */
    uint32_t nentity;
    char *key;
    double value;
} kf_md_quota;

typedef struct kf_md_acl {
    uint8_t id[16];
    int8_t resource_type, pattern_type, operation, permission_type;
    char *resource_name, *principal, *host;
} kf_md_acl;

typedef struct kf_md_scram {
    char *name;
    int8_t mechanism;
    uint8_t *salt, *stored_key, *server_key; /* secrets */
    uint32_t salt_len, stored_key_len, server_key_len;
    int32_t iterations;
} kf_md_scram;

typedef struct kf_md_token {
    char *token_id;            /* secret */
    char *owner, *requester;
    char **renewers;
    uint32_t nrenewers;
    int64_t issue_timestamp, max_timestamp, expiration_timestamp;
} kf_md_token;

typedef struct kf_metadata kf_metadata;

#define KF_METADATA_OPTIONS_VERSION 2
#define KF_METADATA_OPTIONS_INIT KF_OPTIONS_INIT_(kf_metadata_opts, KF_METADATA_OPTIONS_VERSION)
typedef struct kf_metadata_opts {
    unsigned version;         /* KF_METADATA_OPTIONS_VERSION (kfsck.h: options) */
    size_t max_batch_bytes;    /* decompression cap per batch (0: the default) */
    bool has_as_of;            /* the state after offset as_of_offset (else: the end of the log) */
    int64_t as_of_offset;
    kf_problem_fn problem_fn;  /* damage, bad and unknown records, records not applied, KRaft checks */
    void *problem_ctx;
    /* Version 2. The image the node itself loads as it starts, rather than the
     * one from the newest intact snapshot (Kafka's KafkaRaftClient and
     * MetadataLoader at start-up): the latest snapshot at or below the target
     * whatever state it is in, read as Kafka reads it (its batches up to the
     * first damage, a torn last batch dropped; no footer needed), then the log
     * from its end offset up to the first damage no copy covers (where the
     * node's recovery of its metadata log cuts it); and the first record the
     * node's metadata loader fails on, in kf_metadata_info.load_fault. */
    bool as_the_node;
} kf_metadata_opts;

/* Fills *o as KF_METADATA_OPTIONS_INIT does: the version, every other field zero (its
 * default). Every function here taking a kf_metadata_opts: it may be NULL
 * (the defaults); its version must be 1..KF_METADATA_OPTIONS_VERSION, else
 * KF_ERR_UNSUPPORTED (kfsck.h, "Options"). */
void kf_metadata_opts_init(kf_metadata_opts *o);

/* Build the image from ki. Returns KF_OK (problems, if any, were reported),
 * KF_ERR_IO when some input could not be read (reported), KF_ERR_NOMEM.
 * *out is set whenever it is not KF_ERR_NOMEM; free with kf_metadata_free. */
int kf_metadata_build(kf_metadata **out, const kf_kraft_inputs *ki, const kf_metadata_opts *o);
void kf_metadata_free(kf_metadata *m);

/* The job `kfsck metadata` runs: the KRaft files among paths collected
 * (kf_kraft_inputs_collect: each PATH that cannot be used reported through
 * fn) and, when there is a metadata log or snapshot among them, the image
 * built from them (kf_metadata_build). *out is the image, or NULL when no
 * metadata log or snapshot was found (paths of a ZooKeeper-mode broker, or
 * none usable). Returns KF_OK; KF_ERR_IO when a PATH could not be used or
 * an input not read (each reported; the image is still built from the
 * rest); KF_ERR_UNSUPPORTED (an options version it does not know) or
 * KF_ERR_NOMEM, *out NULL. Free *out with kf_metadata_free. */
int kf_metadata_run(kf_metadata **out, char *const *paths, size_t n, const kf_metadata_opts *o,
                    kf_path_error_fn fn, void *ctx);

typedef struct kf_metadata_info {
    const char *cluster_id;    /* from meta.properties, NULL when none */
    const char *snapshot;      /* the snapshot file used, NULL when none */
    int64_t snapshot_offset;   /* its end offset (the first offset it does not cover), -1 when none */
    int32_t snapshot_epoch;
    bool has_last_offset;
    int64_t last_offset;       /* the last offset applied */
    uint64_t records;          /* metadata records applied, snapshot included (control records not) */
    bool has_leader_epoch;
    int32_t leader_epoch;      /* of the last applied batch (the snapshot's epoch when none after it) */
    bool has_voters;           /* voters: newest kraft_voters record, else quorum-state's currentVoters */
    const int32_t *voters;
    size_t nvoters;
    size_t voters_not_listed;  /* voters the source names past those kept (a quorum-state keeps
                                  KF_QUORUM_MAX_VOTERS): counted, not listed */
    bool has_metadata_version;
    int16_t metadata_version;
    int16_t kraft_version;     /* newest KRaftVersionRecord, -1 when none */
    bool open_transaction;     /* the log ends inside a metadata transaction (not applied) */
    uint64_t damaged;          /* damaged ranges no copy covered, bad records */
    uint64_t not_applied;      /* records that decoded but could not be applied */
    int64_t log_start_offset;  /* first segment's base offset, -1 without a log */
    int64_t log_end_offset;    /* last offset + 1 of the log's last intact batch, -1 without */
    /* With kf_metadata_opts.as_the_node (else NULL, -1): the first record on
     * which Kafka's image deltas throw, in the words of the node's metadata
     * loader ("Error loading metadata log record from offset N: <exception>:
     * <message>"; in the snapshot: "... record I in snapshot at offset N:
     * ..."): a fatal fault on a node with the controller role; a
     * broker-only node logs it and goes on without the record. */
    const char *load_fault;
    int64_t load_fault_offset; /* the record's offset (in the snapshot: the snapshot's end offset - 1) */
} kf_metadata_info;

const kf_metadata_info *kf_metadata_get_info(const kf_metadata *m);

/* The image's objects, sorted: features by name, brokers and controllers by
 * id, topics by name (partitions by id), configs by resource type, resource
 * name, config name, quotas by entity then key, ACLs by id, SCRAM
 * credentials by name then mechanism, tokens by id. Valid until
 * kf_metadata_free. */
size_t kf_metadata_features(const kf_metadata *m, const kf_md_feature *const **out);
size_t kf_metadata_brokers(const kf_metadata *m, const kf_md_broker *const **out);
size_t kf_metadata_controllers(const kf_metadata *m, const kf_md_controller *const **out);
size_t kf_metadata_topics(const kf_metadata *m, const kf_md_topic *const **out);
size_t kf_metadata_configs(const kf_metadata *m, const kf_md_config *const **out);
size_t kf_metadata_quotas(const kf_metadata *m, const kf_md_quota *const **out);
size_t kf_metadata_acls(const kf_metadata *m, const kf_md_acl *const **out);
size_t kf_metadata_scram(const kf_metadata *m, const kf_md_scram *const **out);
size_t kf_metadata_tokens(const kf_metadata *m, const kf_md_token *const **out);
/* Producer ids: next_producer_id -1 when none was issued; broker_id and
 * broker_epoch of the last ProducerIdsRecord (-1/-1 from a snapshot). */
void kf_metadata_producer_ids(const kf_metadata *m, int64_t *next_producer_id, int32_t *broker_id,
                              int64_t *broker_epoch);

const kf_md_topic *kf_metadata_topic_by_id(const kf_metadata *m, const uint8_t id[16]);
const kf_md_topic *kf_metadata_topic_by_name(const kf_metadata *m, const char *name);

/* The value of one config of a resource (resource_type 2 for a topic, 4 for
 * a broker: kf_md_config), as the image holds it; NULL when it is not set
 * (the broker's or Kafka's default applies) or its value is null. */
#define KF_CONFIG_TOPIC 2
#define KF_CONFIG_BROKER 4
const char *kf_metadata_config(const kf_metadata *m, int8_t resource_type, const char *resource_name,
                               const char *name);

/* Names of config resource types ("topic", "broker", "broker_logger",
 * "client_metrics", "group"), NULL for other numbers. */
const char *kf_config_resource_name(int8_t type);

/* The image as `kfsck metadata --json` has it (kfsck/sys/json_lines.h): the
 * "cluster" line (a summary line), then a line per feature, broker,
 * controller, topic, partition, config, the producer ids, a line per client
 * quota, ACL, SCRAM credential and delegation token; secrets as KF_REDACTED
 * unless show_secrets. */
struct kf_jsonl;
void kf_metadata_json(struct kf_jsonl *j, const kf_metadata *m, bool show_secrets);

#ifdef __cplusplus
}
#endif

#endif
