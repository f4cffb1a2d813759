/* metadata_json.c: the cluster image's JSON lines (include/kfsck/metadata.h),
 * as `kfsck metadata --json` prints them and the report embeds them: one
 * line per object in the order kfsck(1) gives (metadata): cluster,
 * features, brokers, controllers, topics, partitions, configs, producer
 * ids, then client quotas, ACLs, SCRAM credentials and delegation tokens;
 * secrets redacted unless asked for. */
#include <string.h>

#include "kfsck/metadata.h"
#include "kfsck/sys/checkpoint.h"
#include "kfsck/sys/json_lines.h"
#include "kfsck/sys/kraft.h"

/* id as Kafka shows a Uuid (kf_uuid_to_b64), written in b. */
static const char *uuid_text(char b[23], const uint8_t id[16])
{
    kf_uuid_to_b64(id, b);
    return b;
}

static void ints(kf_jsonl *j, const char *key, const kf_md_ints *v) { kf_jsonl_int32s(j, key, true, v->v, v->n); }

static void uuids(kf_jsonl *j, const char *key, const kf_md_uuids *v)
{
    char b[23];
    kf_jsonl_arr_open(j, key);
    for (uint32_t i = 0; i < v->n; i++)
        kf_jsonl_str(j, NULL, uuid_text(b, v->v[i]));
    kf_jsonl_arr_close(j);
}

static void listeners(kf_jsonl *j, const kf_md_listener *l, uint32_t n)
{
    kf_jsonl_arr_open(j, "listeners");
    for (uint32_t i = 0; i < n; i++) {
        kf_jsonl_obj_open(j, NULL);
        kf_jsonl_fields(j, KF_JS("name", l[i].name), KF_JS("host", l[i].host), KF_JI("port", l[i].port),
                        KF_JI("security_protocol", l[i].security_protocol));
        kf_jsonl_obj_close(j);
    }
    kf_jsonl_arr_close(j);
}

static void ranges(kf_jsonl *j, const char *key, const kf_md_version_range *r, uint32_t n)
{
    kf_jsonl_arr_open(j, key);
    for (uint32_t i = 0; i < n; i++) {
        kf_jsonl_obj_open(j, NULL);
        kf_jsonl_fields(j, KF_JS("name", r[i].name), KF_JI("min_supported_version", r[i].min),
                        KF_JI("max_supported_version", r[i].max));
        kf_jsonl_obj_close(j);
    }
    kf_jsonl_arr_close(j);
}

static const char *secret_str(bool show_secrets, const char *s) { return show_secrets ? s : KF_REDACTED; }

static void secret_b64(kf_jsonl *j, bool show_secrets, const char *key, const uint8_t *p, uint32_t n)
{
    if (show_secrets)
        kf_jsonl_b64(j, key, p, n);
    else
        kf_jsonl_str(j, key, KF_REDACTED);
}

/* The cluster line: its ids, where the image comes from, its versions. */
static void json_cluster(kf_jsonl *j, const kf_metadata *m)
{
    const kf_metadata_info *in = kf_metadata_get_info(m);
    kf_jsonl_begin(j, "cluster");
    kf_jsonl_fields(j, KF_JS("cluster_id", in->cluster_id), KF_JS("snapshot", in->snapshot),
                    KF_JOPT("snapshot_offset", in->snapshot, in->snapshot_offset),
                    KF_JOPT("last_offset", in->has_last_offset, in->last_offset), KF_JU("records", in->records),
                    KF_JOPT("leader_epoch", in->has_leader_epoch, in->leader_epoch));
    kf_jsonl_int32s(j, "voters", in->has_voters, in->voters, in->nvoters);
    if (in->has_voters && in->voters_not_listed) /* counted past those kept */
        kf_jsonl_uint(j, "voters_not_listed", in->voters_not_listed);
    kf_jsonl_fields(j, KF_JOPT("metadata_version", in->has_metadata_version, in->metadata_version),
                    KF_JOPT("kraft_version", in->kraft_version >= 0, in->kraft_version),
                    KF_JOPT("log_start_offset", in->log_start_offset >= 0, in->log_start_offset),
                    KF_JB("open_transaction", in->open_transaction));
    kf_jsonl_end_summary(j);
}

/* A line per finalized feature level. */
static void json_features(kf_jsonl *j, const kf_metadata *m)
{
    const kf_md_feature *const *f;
    size_t nf = kf_metadata_features(m, &f);
    for (size_t i = 0; i < nf; i++) {
        kf_jsonl_begin(j, "feature");
        kf_jsonl_fields(j, KF_JS("name", f[i]->name), KF_JI("level", f[i]->level));
        kf_jsonl_end(j);
    }
}

/* A line per registered broker. */
static void json_brokers(kf_jsonl *j, const kf_metadata *m)
{
    const kf_md_broker *const *b;
    size_t nb = kf_metadata_brokers(m, &b);
    char id[23];
    for (size_t i = 0; i < nb; i++) {
        kf_jsonl_begin(j, "broker");
        kf_jsonl_fields(j, KF_JI("broker_id", b[i]->id), KF_JI("broker_epoch", b[i]->epoch),
                        KF_JS("incarnation_id", uuid_text(id, b[i]->incarnation_id)), KF_JB("fenced", b[i]->fenced),
                        KF_JB("in_controlled_shutdown", b[i]->in_controlled_shutdown), KF_JS("rack", b[i]->rack));
        listeners(j, b[i]->listeners, b[i]->nlisteners);
        uuids(j, "log_dirs", &b[i]->log_dirs);
        if (b[i]->has_cordoned)
            uuids(j, "cordoned_log_dirs", &b[i]->cordoned_log_dirs);
        else
            kf_jsonl_null(j, "cordoned_log_dirs");
        kf_jsonl_bool(j, "is_migrating_zk_broker", b[i]->is_migrating_zk_broker);
        ranges(j, "features", b[i]->features, b[i]->nfeatures);
        kf_jsonl_end(j);
    }
}

/* A line per registered controller. */
static void json_controllers(kf_jsonl *j, const kf_metadata *m)
{
    const kf_md_controller *const *c;
    size_t nc = kf_metadata_controllers(m, &c);
    char id[23];
    for (size_t i = 0; i < nc; i++) {
        kf_jsonl_begin(j, "controller");
        kf_jsonl_fields(j, KF_JI("controller_id", c[i]->id),
                        KF_JS("incarnation_id", uuid_text(id, c[i]->incarnation_id)));
        listeners(j, c[i]->listeners, c[i]->nlisteners);
        kf_jsonl_bool(j, "zk_migration_ready", c[i]->zk_migration_ready);
        ranges(j, "features", c[i]->features, c[i]->nfeatures);
        kf_jsonl_end(j);
    }
}

/* A line per topic. */
static void json_topics(kf_jsonl *j, const kf_metadata *m)
{
    const kf_md_topic *const *t;
    size_t nt = kf_metadata_topics(m, &t);
    char id[23];
    for (size_t i = 0; i < nt; i++) {
        kf_jsonl_begin(j, "topic");
        kf_jsonl_fields(j, KF_JS("topic", t[i]->name), KF_JS("topic_id", uuid_text(id, t[i]->id)),
                        KF_JU("partitions", t[i]->nparts));
        kf_jsonl_end(j);
    }
}

/* A line per partition, topic by topic. */
static void json_partitions(kf_jsonl *j, const kf_metadata *m)
{
    const kf_md_topic *const *t;
    size_t nt = kf_metadata_topics(m, &t);
    char id[23];
    for (size_t i = 0; i < nt; i++) {
        uuid_text(id, t[i]->id);
        for (uint32_t k = 0; k < t[i]->nparts; k++) {
            const kf_md_partition *p = &t[i]->parts[k];
            kf_jsonl_begin(j, "partition");
            kf_jsonl_fields(j, KF_JS("topic", t[i]->name), KF_JS("topic_id", id), KF_JI("partition", p->id));
            ints(j, "replicas", &p->replicas);
            ints(j, "isr", &p->isr);
            kf_jsonl_fields(j, KF_JI("leader", p->leader), KF_JI("leader_epoch", p->leader_epoch),
                            KF_JI("partition_epoch", p->partition_epoch));
            ints(j, "elr", &p->elr);
            ints(j, "last_known_elr", &p->last_known_elr);
            ints(j, "removing_replicas", &p->removing_replicas);
            ints(j, "adding_replicas", &p->adding_replicas);
            if (p->has_directories)
                uuids(j, "directories", &p->directories);
            else
                kf_jsonl_null(j, "directories");
            kf_jsonl_int(j, "leader_recovery_state", p->leader_recovery_state);
            kf_jsonl_end(j);
        }
    }
}

/* A line per config set (secret values redacted unless --show-secrets). */
static void json_configs(kf_jsonl *j, const kf_metadata *m, bool show_secrets)
{
    const kf_md_config *const *cf;
    size_t ncf = kf_metadata_configs(m, &cf);
    for (size_t i = 0; i < ncf; i++) {
        kf_jsonl_begin(j, "config");
        const char *rt = kf_config_resource_name(cf[i]->resource_type);
        if (rt)
            kf_jsonl_str(j, "resource_type", rt);
        else
            kf_jsonl_int(j, "resource_type", cf[i]->resource_type);
        kf_jsonl_fields(j, KF_JS("resource_name", cf[i]->resource_name), KF_JS("name", cf[i]->name));
        bool secret = kf_config_is_secret(cf[i]->name, strlen(cf[i]->name));
        kf_jsonl_str(j, "value", secret ? secret_str(show_secrets, cf[i]->value) : cf[i]->value);
        kf_jsonl_end(j);
    }
}

/* The producer id block last issued, when one was. */
static void json_producer_ids(kf_jsonl *j, const kf_metadata *m)
{
    int64_t next;
    int32_t pb;
    int64_t pe;
    kf_metadata_producer_ids(m, &next, &pb, &pe);
    if (next >= 0) { /* none when no block was ever issued */
        kf_jsonl_begin(j, "producer_ids");
        kf_jsonl_fields(j, KF_JI("next_producer_id", next), KF_JI("broker_id", pb), KF_JI("broker_epoch", pe));
        kf_jsonl_end(j);
    }
}

/* A line per client quota. */
static void json_quotas(kf_jsonl *j, const kf_metadata *m)
{
    const kf_md_quota *const *q;
    size_t nq = kf_metadata_quotas(m, &q);
    for (size_t i = 0; i < nq; i++) {
        kf_jsonl_begin(j, "client_quota");
        kf_jsonl_arr_open(j, "entity");
        for (uint32_t k = 0; k < q[i]->nentity; k++) {
            kf_jsonl_obj_open(j, NULL);
            kf_jsonl_fields(j, KF_JS("entity_type", q[i]->entity[k].type), KF_JS("entity_name", q[i]->entity[k].name));
            kf_jsonl_obj_close(j);
        }
        kf_jsonl_arr_close(j);
        kf_jsonl_fields(j, KF_JS("key", q[i]->key), KF_JD("value", q[i]->value));
        kf_jsonl_end(j);
    }
}

/* A line per ACL. */
static void json_acls(kf_jsonl *j, const kf_metadata *m)
{
    const kf_md_acl *const *a;
    size_t na = kf_metadata_acls(m, &a);
    char id[23];
    for (size_t i = 0; i < na; i++) {
        kf_jsonl_begin(j, "acl");
        kf_jsonl_fields(j, KF_JS("id", uuid_text(id, a[i]->id)), KF_JI("resource_type", a[i]->resource_type),
                        KF_JS("resource_name", a[i]->resource_name), KF_JI("pattern_type", a[i]->pattern_type),
                        KF_JS("principal", a[i]->principal), KF_JS("host", a[i]->host),
                        KF_JI("operation", a[i]->operation), KF_JI("permission_type", a[i]->permission_type));
        kf_jsonl_end(j);
    }
}

/* A line per SCRAM credential (secrets redacted unless --show-secrets). */
static void json_scram(kf_jsonl *j, const kf_metadata *m, bool show_secrets)
{
    const kf_md_scram *const *s;
    size_t ns = kf_metadata_scram(m, &s);
    for (size_t i = 0; i < ns; i++) {
        kf_jsonl_begin(j, "scram_credential");
        kf_jsonl_fields(j, KF_JS("name", s[i]->name), KF_JI("mechanism", s[i]->mechanism));
        secret_b64(j, show_secrets, "salt_b64", s[i]->salt, s[i]->salt_len);
        secret_b64(j, show_secrets, "stored_key_b64", s[i]->stored_key, s[i]->stored_key_len);
        secret_b64(j, show_secrets, "server_key_b64", s[i]->server_key, s[i]->server_key_len);
        kf_jsonl_int(j, "iterations", s[i]->iterations);
        kf_jsonl_end(j);
    }
}

/* A line per delegation token (its id redacted unless --show-secrets). */
static void json_tokens(kf_jsonl *j, const kf_metadata *m, bool show_secrets)
{
    const kf_md_token *const *k;
    size_t nk = kf_metadata_tokens(m, &k);
    for (size_t i = 0; i < nk; i++) {
        kf_jsonl_begin(j, "delegation_token");
        kf_jsonl_fields(j, KF_JS("token_id", secret_str(show_secrets, k[i]->token_id)), KF_JS("owner", k[i]->owner),
                        KF_JS("requester", k[i]->requester));
        kf_jsonl_arr_open(j, "renewers");
        for (uint32_t r = 0; r < k[i]->nrenewers; r++)
            kf_jsonl_str(j, NULL, k[i]->renewers[r]);
        kf_jsonl_arr_close(j);
        kf_jsonl_fields(j, KF_JI("issue_timestamp", k[i]->issue_timestamp), KF_JI("max_timestamp", k[i]->max_timestamp),
                        KF_JI("expiration_timestamp", k[i]->expiration_timestamp));
        kf_jsonl_end(j);
    }
}

void kf_metadata_json(kf_jsonl *j, const kf_metadata *m, bool show_secrets)
{
    json_cluster(j, m);
    json_features(j, m);
    json_brokers(j, m);
    json_controllers(j, m);
    json_topics(j, m);
    json_partitions(j, m);
    json_configs(j, m, show_secrets);
    json_producer_ids(j, m);
    json_quotas(j, m);
    json_acls(j, m);
    json_scram(j, m, show_secrets);
    json_tokens(j, m, show_secrets);
}

