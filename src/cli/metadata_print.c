/* metadata_print.c: how `kfsck metadata` prints the cluster image the
 * library's metadata job builds (kf_metadata_run): one JSON line per object
 * or the text summary, in the order kfsck(1) gives (metadata): cluster,
 * features, brokers, controllers, topics, partitions, configs, producer
 * ids, then client quotas, ACLs, SCRAM credentials and delegation tokens;
 * secrets redacted unless --show-secrets. */
#include "cli/metadata_print.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/dtree_json.h"

static void uuid_str(out *o, const char *key, const uint8_t id[16])
{
    char b[23];
    kf_uuid_to_b64(id, b);
    out_str(o, key, b);
}

static void ints(out *o, const char *key, const kf_md_ints *v) { out_int32s(o, key, true, v->v, v->n); }

static void uuids(out *o, const char *key, const kf_md_uuids *v)
{
    out_arr_open(o, key);
    for (uint32_t i = 0; i < v->n; i++)
        uuid_str(o, NULL, v->v[i]);
    out_arr_close(o);
}

static void listeners(out *o, const kf_md_listener *l, uint32_t n)
{
    out_arr_open(o, "listeners");
    for (uint32_t i = 0; i < n; i++) {
        out_obj_open(o, NULL);
        out_str(o, "name", l[i].name);
        out_str(o, "host", l[i].host);
        out_int(o, "port", l[i].port);
        out_int(o, "security_protocol", l[i].security_protocol);
        out_obj_close(o);
    }
    out_arr_close(o);
}

static void ranges(out *o, const char *key, const kf_md_version_range *r, uint32_t n)
{
    out_arr_open(o, key);
    for (uint32_t i = 0; i < n; i++) {
        out_obj_open(o, NULL);
        out_str(o, "name", r[i].name);
        out_int(o, "min_supported_version", r[i].min);
        out_int(o, "max_supported_version", r[i].max);
        out_obj_close(o);
    }
    out_arr_close(o);
}

static const char *secret_str(bool show_secrets, const char *s) { return show_secrets ? s : DTREE_REDACTED; }

static void secret_b64(out *o, bool show_secrets, const char *key, const uint8_t *p, uint32_t n)
{
    if (show_secrets)
        out_b64(o, key, p, n);
    else
        out_str(o, key, DTREE_REDACTED);
}

/* ---- JSON ------------------------------------------------------------------------ */

/* The cluster line: its ids, where the image comes from, its versions. */
static void json_cluster(out *o, const kf_metadata *m)
{
    const kf_metadata_info *in = kf_metadata_get_info(m);
    out_begin(o, "cluster");
    out_str(o, "cluster_id", in->cluster_id);
    out_str(o, "snapshot", in->snapshot);
    out_opt_int(o, "snapshot_offset", in->snapshot, in->snapshot_offset);
    out_opt_int(o, "last_offset", in->has_last_offset, in->last_offset);
    out_uint(o, "records", in->records);
    out_opt_int(o, "leader_epoch", in->has_leader_epoch, in->leader_epoch);
    out_int32s(o, "voters", in->has_voters, in->voters, in->nvoters);
    if (in->has_voters && in->voters_not_listed) /* counted past those kept */
        out_uint(o, "voters_not_listed", in->voters_not_listed);
    out_opt_int(o, "metadata_version", in->has_metadata_version, in->metadata_version);
    out_opt_int(o, "kraft_version", in->kraft_version >= 0, in->kraft_version);
    out_opt_int(o, "log_start_offset", in->log_start_offset >= 0, in->log_start_offset);
    out_bool(o, "open_transaction", in->open_transaction);
    out_end(o);
}

/* A line per finalized feature level. */
static void json_features(out *o, const kf_metadata *m)
{
    const kf_md_feature *const *f;
    size_t nf = kf_metadata_features(m, &f);
    for (size_t i = 0; i < nf; i++) {
        out_begin(o, "feature");
        out_str(o, "name", f[i]->name);
        out_int(o, "level", f[i]->level);
        out_end(o);
    }
}

/* A line per registered broker. */
static void json_brokers(out *o, const kf_metadata *m)
{
    const kf_md_broker *const *b;
    size_t nb = kf_metadata_brokers(m, &b);
    for (size_t i = 0; i < nb; i++) {
        out_begin(o, "broker");
        out_int(o, "broker_id", b[i]->id);
        out_int(o, "broker_epoch", b[i]->epoch);
        uuid_str(o, "incarnation_id", b[i]->incarnation_id);
        out_bool(o, "fenced", b[i]->fenced);
        out_bool(o, "in_controlled_shutdown", b[i]->in_controlled_shutdown);
        out_str(o, "rack", b[i]->rack);
        listeners(o, b[i]->listeners, b[i]->nlisteners);
        uuids(o, "log_dirs", &b[i]->log_dirs);
        if (b[i]->has_cordoned)
            uuids(o, "cordoned_log_dirs", &b[i]->cordoned_log_dirs);
        else
            out_null(o, "cordoned_log_dirs");
        out_bool(o, "is_migrating_zk_broker", b[i]->is_migrating_zk_broker);
        ranges(o, "features", b[i]->features, b[i]->nfeatures);
        out_end(o);
    }
}

/* A line per registered controller. */
static void json_controllers(out *o, const kf_metadata *m)
{
    const kf_md_controller *const *c;
    size_t nc = kf_metadata_controllers(m, &c);
    for (size_t i = 0; i < nc; i++) {
        out_begin(o, "controller");
        out_int(o, "controller_id", c[i]->id);
        uuid_str(o, "incarnation_id", c[i]->incarnation_id);
        listeners(o, c[i]->listeners, c[i]->nlisteners);
        out_bool(o, "zk_migration_ready", c[i]->zk_migration_ready);
        ranges(o, "features", c[i]->features, c[i]->nfeatures);
        out_end(o);
    }
}

/* A line per topic. */
static void json_topics(out *o, const kf_metadata *m)
{
    const kf_md_topic *const *t;
    size_t nt = kf_metadata_topics(m, &t);
    for (size_t i = 0; i < nt; i++) {
        out_begin(o, "topic");
        out_str(o, "topic", t[i]->name);
        uuid_str(o, "topic_id", t[i]->id);
        out_uint(o, "partitions", t[i]->nparts);
        out_end(o);
    }
}

/* A line per partition, topic by topic. */
static void json_partitions(out *o, const kf_metadata *m)
{
    const kf_md_topic *const *t;
    size_t nt = kf_metadata_topics(m, &t);
    for (size_t i = 0; i < nt; i++) {
        for (uint32_t k = 0; k < t[i]->nparts; k++) {
            const kf_md_partition *p = &t[i]->parts[k];
            out_begin(o, "partition");
            out_str(o, "topic", t[i]->name);
            uuid_str(o, "topic_id", t[i]->id);
            out_int(o, "partition", p->id);
            ints(o, "replicas", &p->replicas);
            ints(o, "isr", &p->isr);
            out_int(o, "leader", p->leader);
            out_int(o, "leader_epoch", p->leader_epoch);
            out_int(o, "partition_epoch", p->partition_epoch);
            ints(o, "elr", &p->elr);
            ints(o, "last_known_elr", &p->last_known_elr);
            ints(o, "removing_replicas", &p->removing_replicas);
            ints(o, "adding_replicas", &p->adding_replicas);
            if (p->has_directories)
                uuids(o, "directories", &p->directories);
            else
                out_null(o, "directories");
            out_int(o, "leader_recovery_state", p->leader_recovery_state);
            out_end(o);
        }
    }
}

/* A line per config set (secret values redacted unless --show-secrets). */
static void json_configs(out *o, const kf_metadata *m, bool show_secrets)
{
    const kf_md_config *const *cf;
    size_t ncf = kf_metadata_configs(m, &cf);
    for (size_t i = 0; i < ncf; i++) {
        out_begin(o, "config");
        const char *rt = kf_config_resource_name(cf[i]->resource_type);
        if (rt)
            out_str(o, "resource_type", rt);
        else
            out_int(o, "resource_type", cf[i]->resource_type);
        out_str(o, "resource_name", cf[i]->resource_name);
        out_str(o, "name", cf[i]->name);
        bool secret = kf_config_is_secret(cf[i]->name, strlen(cf[i]->name));
        out_str(o, "value", secret ? secret_str(show_secrets, cf[i]->value) : cf[i]->value);
        out_end(o);
    }
}

/* The producer id block last issued, when one was. */
static void json_producer_ids(out *o, const kf_metadata *m)
{
    int64_t next;
    int32_t pb;
    int64_t pe;
    kf_metadata_producer_ids(m, &next, &pb, &pe);
    if (next >= 0) { /* none when no block was ever issued */
        out_begin(o, "producer_ids");
        out_int(o, "next_producer_id", next);
        out_int(o, "broker_id", pb);
        out_int(o, "broker_epoch", pe);
        out_end(o);
    }
}

/* A line per client quota. */
static void json_quotas(out *o, const kf_metadata *m)
{
    const kf_md_quota *const *q;
    size_t nq = kf_metadata_quotas(m, &q);
    for (size_t i = 0; i < nq; i++) {
        out_begin(o, "client_quota");
        out_arr_open(o, "entity");
        for (uint32_t k = 0; k < q[i]->nentity; k++) {
            out_obj_open(o, NULL);
            out_str(o, "entity_type", q[i]->entity[k].type);
            out_str(o, "entity_name", q[i]->entity[k].name);
            out_obj_close(o);
        }
        out_arr_close(o);
        out_str(o, "key", q[i]->key);
        out_double(o, "value", q[i]->value);
        out_end(o);
    }
}

/* A line per ACL. */
static void json_acls(out *o, const kf_metadata *m)
{
    const kf_md_acl *const *a;
    size_t na = kf_metadata_acls(m, &a);
    for (size_t i = 0; i < na; i++) {
        out_begin(o, "acl");
        uuid_str(o, "id", a[i]->id);
        out_int(o, "resource_type", a[i]->resource_type);
        out_str(o, "resource_name", a[i]->resource_name);
        out_int(o, "pattern_type", a[i]->pattern_type);
        out_str(o, "principal", a[i]->principal);
        out_str(o, "host", a[i]->host);
        out_int(o, "operation", a[i]->operation);
        out_int(o, "permission_type", a[i]->permission_type);
        out_end(o);
    }
}

/* A line per SCRAM credential (secrets redacted unless --show-secrets). */
static void json_scram(out *o, const kf_metadata *m, bool show_secrets)
{
    const kf_md_scram *const *s;
    size_t ns = kf_metadata_scram(m, &s);
    for (size_t i = 0; i < ns; i++) {
        out_begin(o, "scram_credential");
        out_str(o, "name", s[i]->name);
        out_int(o, "mechanism", s[i]->mechanism);
        secret_b64(o, show_secrets, "salt_b64", s[i]->salt, s[i]->salt_len);
        secret_b64(o, show_secrets, "stored_key_b64", s[i]->stored_key, s[i]->stored_key_len);
        secret_b64(o, show_secrets, "server_key_b64", s[i]->server_key, s[i]->server_key_len);
        out_int(o, "iterations", s[i]->iterations);
        out_end(o);
    }
}

/* A line per delegation token (its id redacted unless --show-secrets). */
static void json_tokens(out *o, const kf_metadata *m, bool show_secrets)
{
    const kf_md_token *const *k;
    size_t nk = kf_metadata_tokens(m, &k);
    for (size_t i = 0; i < nk; i++) {
        out_begin(o, "delegation_token");
        out_str(o, "token_id", secret_str(show_secrets, k[i]->token_id));
        out_str(o, "owner", k[i]->owner);
        out_str(o, "requester", k[i]->requester);
        out_arr_open(o, "renewers");
        for (uint32_t r = 0; r < k[i]->nrenewers; r++)
            out_str(o, NULL, k[i]->renewers[r]);
        out_arr_close(o);
        out_int(o, "issue_timestamp", k[i]->issue_timestamp);
        out_int(o, "max_timestamp", k[i]->max_timestamp);
        out_int(o, "expiration_timestamp", k[i]->expiration_timestamp);
        out_end(o);
    }
}

void metadata_print_json(out *o, const kf_metadata *m, bool show_secrets)
{
    json_cluster(o, m);
    json_features(o, m);
    json_brokers(o, m);
    json_controllers(o, m);
    json_topics(o, m);
    json_partitions(o, m);
    json_configs(o, m, show_secrets);
    json_producer_ids(o, m);
    json_quotas(o, m);
    json_acls(o, m);
    json_scram(o, m, show_secrets);
    json_tokens(o, m, show_secrets);
}

/* ---- text -------------------------------------------------------------------------- */

static void text_ints(FILE *f, const kf_md_ints *v)
{
    fputc('[', f);
    for (uint32_t i = 0; i < v->n; i++)
        tprintf(f, "%s%" PRId32, i ? "," : "", v->v[i]);
    fputc(']', f);
}

static void text_listeners(FILE *f, const kf_md_listener *l, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        tprintf(f, "%s%s://%s:%" PRId32, i ? ", " : " ", l[i].name ? l[i].name : "?", l[i].host ? l[i].host : "",
                l[i].port);
}

void metadata_print_text(FILE *f, const kf_metadata *m, bool show_secrets)
{
    const kf_metadata_info *in = kf_metadata_get_info(m);
    char id[23];
    tprintf(f, "cluster %s\n", in->cluster_id ? in->cluster_id : "(no meta.properties)");
    if (in->snapshot)
        tprintf(f, "  snapshot        %s (covers offsets below %" PRId64 ")\n", in->snapshot, in->snapshot_offset);
    else
        tprintf(f, "  snapshot        none\n");
    if (in->has_last_offset)
        tprintf(f, "  last offset     %" PRId64 " (leader epoch %" PRId32 ")\n", in->last_offset, in->leader_epoch);
    else
        tprintf(f, "  last offset     none\n");
    tprintf(f, "  records         %" PRIu64 "\n", in->records);
    tprintf(f, "  voters         ");
    if (in->has_voters) {
        for (size_t i = 0; i < in->nvoters; i++)
            tprintf(f, " %" PRId32, in->voters[i]);
        if (in->voters_not_listed)
            tprintf(f, " ... and %zu more (%zu in all)", in->voters_not_listed, in->nvoters + in->voters_not_listed);
    } else
        tprintf(f, " unknown");
    tprintf(f, "\n");
    if (in->has_metadata_version)
        tprintf(f, "  metadata.version %d\n", in->metadata_version);
    if (in->open_transaction)
        tprintf(f, "  the log ends inside a metadata transaction (not applied)\n");

    const kf_md_feature *const *fe;
    size_t nf = kf_metadata_features(m, &fe);
    if (nf)
        tprintf(f, "features:\n");
    for (size_t i = 0; i < nf; i++)
        tprintf(f, "  %s = %d\n", fe[i]->name, fe[i]->level);
    const kf_md_broker *const *b;
    size_t nb = kf_metadata_brokers(m, &b);
    if (nb)
        tprintf(f, "brokers:\n");
    for (size_t i = 0; i < nb; i++) {
        tprintf(f, "  %" PRId32 "  epoch %" PRId64 "%s%s%s%s ", b[i]->id, b[i]->epoch, b[i]->fenced ? "  FENCED" : "",
                b[i]->in_controlled_shutdown ? "  in controlled shutdown" : "", b[i]->rack ? "  rack " : "",
                b[i]->rack ? b[i]->rack : "");
        text_listeners(f, b[i]->listeners, b[i]->nlisteners);
        fputc('\n', f);
    }
    const kf_md_controller *const *c;
    size_t nc = kf_metadata_controllers(m, &c);
    if (nc)
        tprintf(f, "controllers:\n");
    for (size_t i = 0; i < nc; i++) {
        tprintf(f, "  %" PRId32 " ", c[i]->id);
        text_listeners(f, c[i]->listeners, c[i]->nlisteners);
        fputc('\n', f);
    }
    const kf_md_topic *const *t;
    size_t nt = kf_metadata_topics(m, &t);
    if (nt)
        tprintf(f, "topics:\n");
    for (size_t i = 0; i < nt; i++) {
        kf_uuid_to_b64(t[i]->id, id);
        tprintf(f, "  %s  %s  %" PRIu32 " partition%s\n", t[i]->name, id, t[i]->nparts, t[i]->nparts == 1 ? "" : "s");
        for (uint32_t k = 0; k < t[i]->nparts; k++) {
            const kf_md_partition *p = &t[i]->parts[k];
            tprintf(f, "    %" PRId32 ": leader %" PRId32 " (epoch %" PRId32 ", partition epoch %" PRId32 ") replicas ",
                    p->id, p->leader, p->leader_epoch, p->partition_epoch);
            text_ints(f, &p->replicas);
            tprintf(f, " isr ");
            text_ints(f, &p->isr);
            if (p->elr.n || p->last_known_elr.n) {
                tprintf(f, " elr ");
                text_ints(f, &p->elr);
                tprintf(f, " last known elr ");
                text_ints(f, &p->last_known_elr);
            }
            if (p->removing_replicas.n || p->adding_replicas.n) {
                tprintf(f, " removing ");
                text_ints(f, &p->removing_replicas);
                tprintf(f, " adding ");
                text_ints(f, &p->adding_replicas);
            }
            fputc('\n', f);
        }
    }
    const kf_md_config *const *cf;
    size_t ncf = kf_metadata_configs(m, &cf);
    if (ncf)
        tprintf(f, "configs:\n");
    for (size_t i = 0; i < ncf; i++) {
        const char *rt = kf_config_resource_name(cf[i]->resource_type);
        bool secret = kf_config_is_secret(cf[i]->name, strlen(cf[i]->name));
        if (rt)
            tprintf(f, "  %s %s: ", rt, cf[i]->resource_name[0] ? cf[i]->resource_name : "(default)");
        else
            tprintf(f, "  type %d %s: ", cf[i]->resource_type, cf[i]->resource_name);
        tprintf(f, "%s=%s\n", cf[i]->name, secret ? secret_str(show_secrets, cf[i]->value) : cf[i]->value);
    }
    int64_t next, pe;
    int32_t pb;
    kf_metadata_producer_ids(m, &next, &pb, &pe);
    if (next >= 0)
        tprintf(f, "producer ids: next %" PRId64 " (last block to broker %" PRId32 ", epoch %" PRId64 ")\n", next, pb,
                pe);
    const kf_md_quota *const *q;
    size_t nq = kf_metadata_quotas(m, &q);
    if (nq)
        tprintf(f, "client quotas:\n");
    for (size_t i = 0; i < nq; i++) {
        tprintf(f, " ");
        for (uint32_t k = 0; k < q[i]->nentity; k++)
            tprintf(f, " %s=%s", q[i]->entity[k].type, q[i]->entity[k].name ? q[i]->entity[k].name : "<default>");
        tprintf(f, ": %s=%g\n", q[i]->key, q[i]->value);
    }
    const kf_md_acl *const *a;
    size_t na = kf_metadata_acls(m, &a);
    if (na)
        tprintf(f, "acls: %zu\n", na);
    const kf_md_scram *const *s;
    size_t ns = kf_metadata_scram(m, &s);
    if (ns)
        tprintf(f, "scram credentials:\n");
    for (size_t i = 0; i < ns; i++)
        tprintf(f, "  %s mechanism %d iterations %" PRId32 "%s\n", s[i]->name, s[i]->mechanism, s[i]->iterations,
                show_secrets ? "" : " (salt and keys redacted)");
    const kf_md_token *const *k;
    size_t nk = kf_metadata_tokens(m, &k);
    if (nk)
        tprintf(f, "delegation tokens:\n");
    for (size_t i = 0; i < nk; i++)
        tprintf(f, "  %s owner %s expires %" PRId64 "\n", secret_str(show_secrets, k[i]->token_id),
                k[i]->owner ? k[i]->owner : "?", k[i]->expiration_timestamp);
}
