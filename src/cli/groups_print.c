/* groups_print.c: one group of `kfsck groups` as its "group" JSON line
 * (groups_print.h): its records decoded (kf_group_record_decode) and
 * rendered field by field; topics named by kf_topic_names. */
#include "cli/groups_print.h"

#include <string.h>

#include "cli/dtree_json.h"
#include "cli/walk.h"

/* ---- group records, decoded for printing ----------------------------------- */

typedef struct decoded {
    const kf_group_record *gr;
    kf_dtree t;
    kf_coord_record cr;
    kf_group_key k;     /* group and member ids (point into the key bytes) */
} decoded;

static bool decode(decoded *d, const kf_group_record *gr)
{
    d->gr = gr;
    return kf_group_record_decode(gr, &d->t, &d->cr, &d->k) == KF_OK;
}

static const kf_dnode *vfield(const decoded *d, const char *name)
{
    return kf_dnode_field(&d->t, &d->t.nodes[d->cr.value_root], name);
}

/* ---- output ----------------------------------------------------------------- */

static void partitions_list(out *o, const char *key, const kf_dtree *t, const kf_dnode *arr,
                            const kf_topic_names *ns, bool by_id)
{
    kf_jsonl_arr_open(&o->w, key);
    if (arr && arr->kind == KF_V_ARRAY) {
        for (uint32_t c = arr->first_child; c != KF_DNODE_NONE; c = t->nodes[c].next) {
            const kf_dnode *tp = &t->nodes[c];
            kf_jsonl_obj_open(&o->w, NULL);
            if (by_id) {
                const kf_dnode *id = kf_dnode_field(t, tp, "topic_id");
                const char *name = id && id->kind == KF_V_UUID ? kf_topic_names_name(ns, id->p) : NULL;
                kf_jsonl_str(&o->w, "topic", name);
                dtree_json_field_or_null(o, "topic_id", t, tp, "topic_id");
            } else {
                dtree_json_field_or_null(o, "topic", t, tp, "topic");
            }
            const kf_dnode *ps = kf_dnode_field(t, tp, "partitions");
            if (ps)
                dtree_json_value(o, "partitions", t, ps);
            else
                kf_jsonl_arr_open(&o->w, "partitions"), kf_jsonl_arr_close(&o->w);
            kf_jsonl_obj_close(&o->w);
        }
    }
    kf_jsonl_arr_close(&o->w);
}

/* The fields of struct node st named in names (each under its own name; null
 * for one st lacks, or for all when st is NULL). */
static void named_fields(out *o, const kf_dtree *t, const kf_dnode *st, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dtree_json_field_or_null(o, names[i], t, st, names[i]);
}

/* A classic member m's subscription (or assignment): decoded when the
 * group's protocol type is consumer and the decoder could read it, else its
 * raw bytes as subscription_b64 (assignment_b64; null when it has none). */
static void member_protocol(out *o, const kf_dtree *t, const kf_dnode *m, bool consumer, bool assignment)
{
    const char *name = assignment ? "assignment" : "subscription";
    const kf_dnode *parsed = kf_dnode_field(t, m, name);
    if (consumer && parsed && parsed->kind == KF_V_STRUCT) {
        dtree_json_consumer_protocol(o, name, t, parsed, assignment);
        return;
    }
    const kf_dnode *raw = kf_dnode_field(t, m, assignment ? "assignment_bytes" : "subscription_bytes");
    if (!raw)
        raw = parsed;
    const char *key = assignment ? "assignment_b64" : "subscription_b64";
    if (raw && raw->kind == KF_V_BYTES)
        kf_jsonl_b64(&o->w, key, raw->p, raw->len);
    else
        kf_jsonl_null(&o->w, key);
}

static void classic_member(out *o, const kf_dtree *t, const kf_dnode *m, bool consumer)
{
    static const char *const names[] = {"member_id",   "group_instance_id", "client_id",
                                        "client_host", "session_timeout",   "rebalance_timeout"};
    kf_jsonl_obj_open(&o->w, NULL);
    named_fields(o, t, m, names, sizeof names / sizeof names[0]);
    member_protocol(o, t, m, consumer, false);
    member_protocol(o, t, m, consumer, true);
    kf_jsonl_obj_close(&o->w);
}

static const char *state_name(kf_group_state s)
{
    return s == KF_GROUP_STABLE ? "stable" : s == KF_GROUP_DEAD ? "dead" : "empty";
}

/* A classic group's state and the fields of its group-metadata value v (all
 * null when v is NULL: a group known only from its committed offsets). */
static void classic_head(out *o, const kf_group *g, const kf_dtree *t, const kf_dnode *v)
{
    static const char *const names[] = {"protocol_type", "generation", "protocol", "leader",
                                        "current_state_timestamp"};
    kf_jsonl_str(&o->w, "state", state_name(g->state));
    named_fields(o, t, v, names, sizeof names / sizeof names[0]);
}

/* A classic group from its group-metadata record, decoded into d. */
static void classic_group(out *o, const kf_group *g, decoded *d)
{
    const kf_dtree *t = &d->t;
    const kf_dnode *members = vfield(d, "members");
    const kf_dnode *pt = vfield(d, "protocol_type");
    bool consumer = pt && pt->kind == KF_V_STRING && pt->len == 8 && !memcmp(pt->p, "consumer", 8);
    classic_head(o, g, t, &t->nodes[d->cr.value_root]);
    kf_jsonl_int(&o->w, "value_version", d->cr.value_version);
    kf_jsonl_arr_open(&o->w, "members");
    if (members)
        for (uint32_t c = members->first_child; c != KF_DNODE_NONE; c = t->nodes[c].next)
            classic_member(o, t, &t->nodes[c], consumer);
    kf_jsonl_arr_close(&o->w);
    kf_jsonl_fields(&o->w, KF_JI("source_partition", d->gr->source_partition),
                    KF_JI("source_offset", d->gr->source_offset));
}

/* Group-level records: subscribed topics' metadata, the streams topology,
 * the resolved regular expressions; the fields the kind has are null (or
 * empty) when no record holds them. */
static void group_level(out *o, const kf_group *g, decoded *d)
{
    bool sub_meta = false, topology = false, regex_open = false;
    for (size_t i = 0; i < g->nrecords; i++) {
        if (!decode(d, g->records[i]))
            continue;
        kf_group_role role = kf_group_role_of_type(d->cr.key_type);
        const kf_dnode *v = &d->t.nodes[d->cr.value_root];
        if (role == KF_GROLE_PARTITION_METADATA) {
            dtree_json_field_or_null(o, "subscription_metadata", &d->t, v, "topics");
            sub_meta = true;
        } else if (role == KF_GROLE_TOPOLOGY) {
            dtree_json_object(o, "topology", &d->t, v);
            topology = true;
        }
    }
    if (g->kind == KF_GROUP_CONSUMER && !sub_meta)
        kf_jsonl_null(&o->w, "subscription_metadata");
    if (g->kind == KF_GROUP_STREAMS && !topology)
        kf_jsonl_null(&o->w, "topology");
    for (size_t i = 0; i < g->nrecords; i++) {
        if (!decode(d, g->records[i]) || kf_group_role_of_type(d->cr.key_type) != KF_GROLE_REGULAR_EXPRESSION)
            continue;
        if (!regex_open)
            kf_jsonl_arr_open(&o->w, "regular_expressions");
        regex_open = true;
        kf_jsonl_obj_open(&o->w, NULL);
        dtree_json_field_or_null(o, "regular_expression", &d->t, &d->t.nodes[d->cr.key_root], "regular_expression");
        dtree_json_fields(o, &d->t, &d->t.nodes[d->cr.value_root]);
        kf_jsonl_obj_close(&o->w);
    }
    if (!regex_open && g->kind == KF_GROUP_CONSUMER) {
        kf_jsonl_arr_open(&o->w, "regular_expressions");
        regex_open = true;
    }
    if (regex_open)
        kf_jsonl_arr_close(&o->w);
}

/* A member's current assignment (member_epoch, state, assignment). */
static void member_current(out *o, const kf_group *g, const kf_group_member *m, decoded *a,
                           const kf_topic_names *local)
{
    if (!(m->current && decode(a, m->current))) {
        kf_jsonl_int(&o->w, "member_epoch", -1);
        if (g->kind != KF_GROUP_STREAMS) {
            kf_jsonl_arr_open(&o->w, "assignment");
            kf_jsonl_arr_close(&o->w);
        }
        return;
    }
    const kf_dnode *v = &a->t.nodes[a->cr.value_root];
    kf_jsonl_int(&o->w, "member_epoch", kf_dnode_int(&a->t, v, "member_epoch", -1));
    dtree_json_field_or_null(o, "previous_member_epoch", &a->t, v, "previous_member_epoch");
    dtree_json_field_or_null(o, "state", &a->t, v, "state");
    if (g->kind == KF_GROUP_STREAMS) {
        for (uint32_t c = v->first_child; c != KF_DNODE_NONE; c = a->t.nodes[c].next) {
            const kf_dnode *f = &a->t.nodes[c];
            if (f->name && strcmp(f->name, "member_epoch") && strcmp(f->name, "previous_member_epoch") &&
                strcmp(f->name, "state"))
                dtree_json_value(o, f->name, &a->t, f);
        }
        return;
    }
    partitions_list(o, "assignment", &a->t, kf_dnode_field(&a->t, v, "assigned_partitions"), local, true);
    const kf_dnode *pend = kf_dnode_field(&a->t, v, "partitions_pending_revocation");
    if (pend)
        partitions_list(o, "partitions_pending_revocation", &a->t, pend, local, true);
}

/* A member: its id, current and target assignments, its metadata fields. */
static void member(out *o, const kf_group *g, const kf_group_member *m, decoded *d, const kf_topic_names *local)
{
    if (!decode(d, m->metadata))
        return;
    kf_jsonl_obj_open(&o->w, NULL);
    kf_jsonl_strn(&o->w, "member_id", d->k.member, d->k.member_len);
    decoded a = {0};
    member_current(o, g, m, &a, local);
    if (m->target && decode(&a, m->target)) {
        const kf_dnode *v = &a.t.nodes[a.cr.value_root];
        if (g->kind == KF_GROUP_STREAMS)
            dtree_json_object(o, "target_assignment", &a.t, v);
        else
            partitions_list(o, "target_assignment", &a.t, kf_dnode_field(&a.t, v, "topic_partitions"), local, true);
    }
    kf_dtree_free(&a.t);
    dtree_json_fields(o, &d->t, &d->t.nodes[d->cr.value_root]);
    kf_jsonl_obj_close(&o->w);
}

/* A consumer, share or streams group from its records; its topics named
 * by its own partition-metadata records over the cluster's names ns. */
static void modern_group(out *o, const kf_group *g, const kf_topic_names *ns)
{
    kf_topic_names *local;
    if (kf_group_topic_names(g, ns, &local) != KF_OK)
        cli_oom();
    decoded d = {0};
    kf_jsonl_fields(&o->w, KF_JI("group_epoch", g->group_epoch), KF_JI("assignment_epoch", g->assignment_epoch));
    group_level(o, g, &d);
    kf_jsonl_str(&o->w, "state", state_name(g->state));
    kf_jsonl_arr_open(&o->w, "members");
    for (size_t i = 0; i < g->nmembers; i++)
        member(o, g, &g->members[i], &d, local);
    kf_jsonl_arr_close(&o->w);
    kf_topic_names_free(local);
    kf_dtree_free(&d.t);
}

/* One group as a "group" line (JSON, or the text it renders to). */
void groups_print(out *o, const kf_group *g, const kf_topic_names *ns)
{
    kf_jsonl_begin(&o->w, "group");
    kf_jsonl_fields(&o->w, KF_JS("group", g->id), KF_JS("kind", kf_group_kind_name(g->kind)));
    decoded d = {0};
    switch (g->form) {
    case KF_GROUP_FROM_METADATA:
        decode(&d, g->metadata);
        classic_group(o, g, &d);
        break;
    case KF_GROUP_FROM_RECORDS: modern_group(o, g, ns); break;
    case KF_GROUP_DELETED:
        /* a deleted consumer, share or streams group: nothing left but its kind */
        kf_jsonl_fields(&o->w, KF_JS("state", state_name(g->state)), KF_JNULL("group_epoch"),
                        KF_JNULL("assignment_epoch"));
        kf_jsonl_arr_open(&o->w, "members");
        kf_jsonl_arr_close(&o->w);
        break;
    case KF_GROUP_BARE:
        /* known only from committed offsets, or a deleted classic group */
        classic_head(o, g, NULL, NULL);
        kf_jsonl_arr_open(&o->w, "members");
        kf_jsonl_arr_close(&o->w);
        break;
    }
    kf_dtree_free(&d.t);
    kf_jsonl_end(&o->w);
}
