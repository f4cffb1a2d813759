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

static const char *secret_str(bool show_secrets, const char *s) { return show_secrets ? s : KF_REDACTED; }

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
