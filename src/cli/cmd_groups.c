/* cmd_groups.c: `kfsck groups`: the latest state of every group, rebuilt
 * from the __consumer_offsets partitions under the PATHs by the same replay
 * as `offsets`: classic groups from their group-metadata record (members'
 * consumer-protocol subscriptions and assignments decoded), consumer/share/
 * streams groups (KIP-848, KIP-932, KIP-1071) from their records, groups
 * known only from committed offsets, and deleted groups (state dead). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/dtree_json.h"
#include "cli/json_text.h"
#include "cli/kraft_names.h"
#include "cli/partitions.h"
#include "cli/walk.h"
#include "kfsck/groups.h"
#include "kfsck/replay.h"

/* topic id -> name, from the KRaft metadata log, the groups'
 * partition-metadata records and the partition.metadata files of the
 * inputs (the first source to name an id wins) */
typedef struct topic_name {
    uint8_t id[16];
    char *name;
} topic_name;

typedef struct names {
    topic_name *v;
    size_t n;
} names;

static void names_add(names *ns, const uint8_t id[16], const uint8_t *name, size_t len)
{
    for (size_t i = 0; i < ns->n; i++)
        if (!memcmp(ns->v[i].id, id, 16))
            return;
    topic_name *nv = realloc(ns->v, (ns->n + 1) * sizeof *nv);
    char *s = malloc(len + 1);
    if (!nv || !s)
        cli_oom();
    ns->v = nv;
    memcpy(s, name, len);
    s[len] = 0;
    memcpy(ns->v[ns->n].id, id, 16);
    ns->v[ns->n].name = s;
    ns->n++;
}

static const char *names_find(const names *ns, const uint8_t id[16])
{
    for (size_t i = 0; i < ns->n; i++)
        if (!memcmp(ns->v[i].id, id, 16))
            return ns->v[i].name;
    return NULL;
}

static void names_from_metadata(names *ns, const kf_metadata *m)
{
    const kf_md_topic *const *t;
    size_t n = m ? kf_metadata_topics(m, &t) : 0;
    for (size_t i = 0; i < n; i++)
        names_add(ns, t[i]->id, (const uint8_t *)t[i]->name, strlen(t[i]->name));
}

static void names_from_inputs(names *ns, const kf_inputs *in)
{
    for (size_t i = 0; i < in->n; i++) {
        const kf_partition *p = &in->parts[i];
        for (size_t c = 0; c < p->ncopies; c++) {
            char *pm = path_join(p->copies[c].label, "partition.metadata");
            kf_file_contents m;
            if (kf_file_read_all(pm, KF_SMALL_FILE_MAX, &m.data, &m.size) == KF_OK) {
                kf_partition_metadata md;
                if (kf_partition_metadata_parse(m.data, m.size, &md) == KF_OK)
                    names_add(ns, md.topic_id, (const uint8_t *)p->topic, strlen(p->topic));
                free(m.data);
            }
            free(pm);
        }
    }
}

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
    return kf_group_record_decode(gr, &d->t, &d->cr, &d->k);
}

static const kf_dnode *vfield(const decoded *d, const char *name)
{
    return kf_dnode_field(&d->t, &d->t.nodes[d->cr.value_root], name);
}

/* ---- output ----------------------------------------------------------------- */

static void partitions_list(out *o, const char *key, const kf_dtree *t, const kf_dnode *arr, const names *ns,
                            bool by_id)
{
    out_arr_open(o, key);
    if (arr && arr->kind == KF_V_ARRAY) {
        for (uint32_t c = arr->first_child; c != KF_DNODE_NONE; c = t->nodes[c].next) {
            const kf_dnode *tp = &t->nodes[c];
            out_obj_open(o, NULL);
            if (by_id) {
                const kf_dnode *id = kf_dnode_field(t, tp, "topic_id");
                const char *name = id && id->kind == KF_V_UUID ? names_find(ns, id->p) : NULL;
                out_str(o, "topic", name);
                if (id)
                    dtree_json_value(o, "topic_id", t, id);
                else
                    out_null(o, "topic_id");
            } else {
                const kf_dnode *tn = kf_dnode_field(t, tp, "topic");
                if (tn)
                    dtree_json_value(o, "topic", t, tn);
                else
                    out_null(o, "topic");
            }
            const kf_dnode *ps = kf_dnode_field(t, tp, "partitions");
            if (ps)
                dtree_json_value(o, "partitions", t, ps);
            else
                out_arr_open(o, "partitions"), out_arr_close(o);
            out_obj_close(o);
        }
    }
    out_arr_close(o);
}

static void field_or_null(out *o, const char *key, const kf_dtree *t, const kf_dnode *st, const char *name)
{
    const kf_dnode *f = st ? kf_dnode_field(t, st, name) : NULL;
    if (f)
        dtree_json_value(o, key, t, f);
    else
        out_null(o, key);
}

static void classic_member(out *o, const kf_dtree *t, const kf_dnode *m, bool consumer)
{
    out_obj_open(o, NULL);
    field_or_null(o, "member_id", t, m, "member_id");
    field_or_null(o, "group_instance_id", t, m, "group_instance_id");
    field_or_null(o, "client_id", t, m, "client_id");
    field_or_null(o, "client_host", t, m, "client_host");
    field_or_null(o, "session_timeout", t, m, "session_timeout");
    field_or_null(o, "rebalance_timeout", t, m, "rebalance_timeout");
    const kf_dnode *sub = kf_dnode_field(t, m, "subscription");
    const kf_dnode *asg = kf_dnode_field(t, m, "assignment");
    if (consumer && sub && sub->kind == KF_V_STRUCT) {
        dtree_json_consumer_protocol(o, "subscription", t, sub, false);
    } else {
        const kf_dnode *raw = kf_dnode_field(t, m, "subscription_bytes");
        if (!raw)
            raw = sub;
        if (raw && raw->kind == KF_V_BYTES)
            out_b64(o, "subscription_b64", raw->p, raw->len);
        else
            out_null(o, "subscription_b64");
    }
    if (consumer && asg && asg->kind == KF_V_STRUCT) {
        dtree_json_consumer_protocol(o, "assignment", t, asg, true);
    } else {
        const kf_dnode *raw = kf_dnode_field(t, m, "assignment_bytes");
        if (!raw)
            raw = asg;
        if (raw && raw->kind == KF_V_BYTES)
            out_b64(o, "assignment_b64", raw->p, raw->len);
        else
            out_null(o, "assignment_b64");
    }
    out_obj_close(o);
}

static const char *state_name(kf_group_state s)
{
    return s == KF_GROUP_STABLE ? "stable" : s == KF_GROUP_DEAD ? "dead" : "empty";
}

/* A classic group from its group-metadata record, decoded into d. */
static void classic_group(out *o, const kf_group *g, decoded *d)
{
    const kf_dtree *t = &d->t;
    const kf_dnode *members = vfield(d, "members");
    const kf_dnode *pt = vfield(d, "protocol_type");
    bool consumer = pt && pt->kind == KF_V_STRING && pt->len == 8 && !memcmp(pt->p, "consumer", 8);
    out_str(o, "state", state_name(g->state));
    field_or_null(o, "protocol_type", t, &t->nodes[d->cr.value_root], "protocol_type");
    field_or_null(o, "generation", t, &t->nodes[d->cr.value_root], "generation");
    field_or_null(o, "protocol", t, &t->nodes[d->cr.value_root], "protocol");
    field_or_null(o, "leader", t, &t->nodes[d->cr.value_root], "leader");
    field_or_null(o, "current_state_timestamp", t, &t->nodes[d->cr.value_root], "current_state_timestamp");
    out_int(o, "value_version", d->cr.value_version);
    out_arr_open(o, "members");
    if (members)
        for (uint32_t c = members->first_child; c != KF_DNODE_NONE; c = t->nodes[c].next)
            classic_member(o, t, &t->nodes[c], consumer);
    out_arr_close(o);
    out_int(o, "source_partition", d->gr->source_partition);
    out_int(o, "source_offset", d->gr->source_offset);
}

/* The topic names a group's partition-metadata records give its topic ids
 * (before the names known from elsewhere: the group's own win). */
static void names_of_group(names *local, const kf_group *g, decoded *d)
{
    for (size_t i = 0; i < g->nrecords; i++) {
        if (!decode(d, g->records[i]) || kf_group_role_of_type(d->cr.key_type) != KF_GROLE_PARTITION_METADATA)
            continue;
        const kf_dnode *ts = vfield(d, "topics");
        if (ts && ts->kind == KF_V_ARRAY)
            for (uint32_t c = ts->first_child; c != KF_DNODE_NONE; c = d->t.nodes[c].next) {
                const kf_dnode *id = kf_dnode_field(&d->t, &d->t.nodes[c], "topic_id");
                const kf_dnode *nm = kf_dnode_field(&d->t, &d->t.nodes[c], "topic_name");
                if (id && nm && id->kind == KF_V_UUID && nm->kind == KF_V_STRING)
                    names_add(local, id->p, nm->p, nm->len);
            }
    }
}

/* The group epoch (of its metadata record) and the target assignment's. */
static void group_epochs(out *o, const kf_group *g, decoded *d)
{
    int64_t group_epoch = -1, assignment_epoch = -1;
    for (size_t i = 0; i < g->nrecords; i++) {
        if (!decode(d, g->records[i]))
            continue;
        kf_group_role role = kf_group_role_of_type(d->cr.key_type);
        if (role == KF_GROLE_METADATA)
            group_epoch = kf_dnode_int(&d->t, &d->t.nodes[d->cr.value_root], "epoch", -1);
        else if (role == KF_GROLE_TARGET_METADATA)
            assignment_epoch = kf_dnode_int(&d->t, &d->t.nodes[d->cr.value_root], "assignment_epoch", -1);
    }
    out_int(o, "group_epoch", group_epoch);
    out_int(o, "assignment_epoch", assignment_epoch);
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
            field_or_null(o, "subscription_metadata", &d->t, v, "topics");
            sub_meta = true;
        } else if (role == KF_GROLE_TOPOLOGY) {
            out_obj_open(o, "topology");
            dtree_json_fields(o, &d->t, v);
            out_obj_close(o);
            topology = true;
        }
    }
    if (g->kind == KF_GROUP_CONSUMER && !sub_meta)
        out_null(o, "subscription_metadata");
    if (g->kind == KF_GROUP_STREAMS && !topology)
        out_null(o, "topology");
    for (size_t i = 0; i < g->nrecords; i++) {
        if (!decode(d, g->records[i]) || kf_group_role_of_type(d->cr.key_type) != KF_GROLE_REGULAR_EXPRESSION)
            continue;
        if (!regex_open)
            out_arr_open(o, "regular_expressions");
        regex_open = true;
        out_obj_open(o, NULL);
        field_or_null(o, "regular_expression", &d->t, &d->t.nodes[d->cr.key_root], "regular_expression");
        dtree_json_fields(o, &d->t, &d->t.nodes[d->cr.value_root]);
        out_obj_close(o);
    }
    if (!regex_open && g->kind == KF_GROUP_CONSUMER) {
        out_arr_open(o, "regular_expressions");
        regex_open = true;
    }
    if (regex_open)
        out_arr_close(o);
}

/* A member's current assignment (member_epoch, state, assignment). */
static void member_current(out *o, const kf_group *g, const kf_group_member *m, decoded *a, const names *local)
{
    if (!(m->current && decode(a, m->current))) {
        out_int(o, "member_epoch", -1);
        if (g->kind != KF_GROUP_STREAMS) {
            out_arr_open(o, "assignment");
            out_arr_close(o);
        }
        return;
    }
    const kf_dnode *v = &a->t.nodes[a->cr.value_root];
    out_int(o, "member_epoch", kf_dnode_int(&a->t, v, "member_epoch", -1));
    field_or_null(o, "previous_member_epoch", &a->t, v, "previous_member_epoch");
    field_or_null(o, "state", &a->t, v, "state");
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
static void member(out *o, const kf_group *g, const kf_group_member *m, decoded *d, const names *local)
{
    if (!decode(d, m->metadata))
        return;
    out_obj_open(o, NULL);
    out_strn(o, "member_id", d->k.member, d->k.member_len);
    decoded a = {0};
    member_current(o, g, m, &a, local);
    if (m->target && decode(&a, m->target)) {
        const kf_dnode *v = &a.t.nodes[a.cr.value_root];
        if (g->kind == KF_GROUP_STREAMS) {
            out_obj_open(o, "target_assignment");
            dtree_json_fields(o, &a.t, v);
            out_obj_close(o);
        } else {
            partitions_list(o, "target_assignment", &a.t, kf_dnode_field(&a.t, v, "topic_partitions"), local, true);
        }
    }
    kf_dtree_free(&a.t);
    dtree_json_fields(o, &d->t, &d->t.nodes[d->cr.value_root]);
    out_obj_close(o);
}

/* A consumer, share or streams group from its records. */
static void modern_group(out *o, const kf_group *g, const names *ns)
{
    names local = {0};
    decoded d = {0};
    names_of_group(&local, g, &d);
    for (size_t i = 0; i < ns->n; i++)
        names_add(&local, ns->v[i].id, (const uint8_t *)ns->v[i].name, strlen(ns->v[i].name));
    group_epochs(o, g, &d);
    group_level(o, g, &d);
    out_str(o, "state", state_name(g->state));
    out_arr_open(o, "members");
    for (size_t i = 0; i < g->nmembers; i++)
        member(o, g, &g->members[i], &d, &local);
    out_arr_close(o);
    for (size_t i = 0; i < local.n; i++)
        free(local.v[i].name);
    free(local.v);
    kf_dtree_free(&d.t);
}

/* ---- command ---------------------------------------------------------------- */

static void groups_usage(FILE *f)
{
    fprintf(f, "usage: kfsck groups [--group G]... [--offsets-partitions N] [--max-batch-bytes N]\n"
               "                    [--json] PATH...\n\n"
               "The latest state of every group found in the __consumer_offsets partitions\n"
               "under the PATHs: kind (classic, consumer, share, streams), state (empty,\n"
               "stable, dead), members and their assignments.\n");
}

/* One group as a "group" line (JSON, or the text it renders to). */
static void print_group(out *o, const kf_group *g, const names *ns)
{
    out_begin(o, "group");
    out_str(o, "group", g->id);
    out_str(o, "kind", kf_group_kind_name(g->kind));
    decoded d = {0};
    switch (g->form) {
    case KF_GROUP_FROM_METADATA:
        decode(&d, g->metadata);
        classic_group(o, g, &d);
        break;
    case KF_GROUP_FROM_RECORDS: modern_group(o, g, ns); break;
    case KF_GROUP_DELETED:
        /* a deleted consumer, share or streams group: nothing left but its kind */
        out_str(o, "state", state_name(g->state));
        out_null(o, "group_epoch");
        out_null(o, "assignment_epoch");
        out_arr_open(o, "members");
        out_arr_close(o);
        break;
    case KF_GROUP_BARE:
        /* known only from committed offsets, or a deleted classic group */
        out_str(o, "state", state_name(g->state));
        out_null(o, "protocol_type");
        out_null(o, "generation");
        out_null(o, "protocol");
        out_null(o, "leader");
        out_null(o, "current_state_timestamp");
        out_arr_open(o, "members");
        out_arr_close(o);
        break;
    }
    kf_dtree_free(&d.t);
    out_end(o);
}

/* Text mode: the group line written into memory, printed as indented text
 * (json_text.c) without its {"type":"group", and the memory emptied. */
static void flush_text(FILE *memf, char **mem, size_t *memlen)
{
    fflush(memf);
    char *body = strchr(*mem, ',');
    if (body) {
        *body = '{';
        json_text_print(stdout, body, *memlen - (size_t)(body - *mem), 0);
        fputc('\n', stdout);
    }
    rewind(memf);
    *memlen = 0;
    (*mem)[0] = 0;
}

typedef struct groups_opts {
    const char **want;          /* --group, at most one per argument */
    size_t nwant;
    bool json;
    uint64_t max_batch;
    int32_t offsets_partitions;
} groups_opts;

/* The options into *op; optind is then the first PATH. -1 to go on, else
 * the exit code. */
static int parse_opts(int argc, char **argv, groups_opts *op)
{
    static const struct option longopts[] = {
        {"group", required_argument, 0, 'g'}, {"json", no_argument, 0, 'j'},
        {"offsets-partitions", required_argument, 0, 'n'},
        {"max-batch-bytes", required_argument, 0, 'B'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'g': op->want[op->nwant++] = optarg; break;
        case 'j': op->json = true; break;
        case 'n': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (!*optarg || *end || v <= 0 || v > INT32_MAX)
                return opt_usage_error("groups", "--offsets-partitions needs a positive count, not", optarg,
                                       groups_usage);
            op->offsets_partitions = (int32_t)v;
            break;
        }
        case 'B':
            if (opt_positive_size("groups", "--max-batch-bytes", optarg, &op->max_batch))
                return EXIT_USAGE;
            break;
        case 'h': groups_usage(stdout); return EXIT_CLEAN;
        default: return opt_usage_error("groups", "unknown or incomplete option", argv[optind - 1], groups_usage);
        }
    }
    if (optind >= argc)
        return opt_usage_error("groups", "no PATH given", NULL, groups_usage);
    return -1;
}

static bool selected(const groups_opts *op, const char *g)
{
    bool yes = op->nwant == 0;
    for (size_t k = 0; k < op->nwant && !yes; k++)
        yes = !strcmp(op->want[k], g);
    return yes;
}

/* The topic names of ids: the cluster's own metadata log first, then the
 * partition.metadata files of the inputs. */
static void names_of_cluster(names *ns, char *const *paths, int n, const kf_inputs *in, uint64_t max_batch)
{
    kf_metadata *meta = kraft_image_of(paths, n, max_batch);
    names_from_metadata(ns, meta);
    kf_metadata_free(meta);
    names_from_inputs(ns, in);
}

int cmd_groups(int argc, char **argv)
{
    const char *want[argc];
    groups_opts op = {want, 0, false, KF_DEFAULT_MAX_BATCH_BYTES, 50};
    int status = parse_opts(argc, argv, &op);
    if (status >= 0)
        return status;
    if (cli_mixed_clusters(argv + optind, argc - optind))
        return EXIT_FAIL;
    out o, e;
    /* Text mode: each group is written as JSON into memory, then printed as
     * indented text (json_text.c): one renderer for both. */
    char *mem = NULL;
    size_t memlen = 0;
    FILE *memf = op.json ? NULL : open_memstream(&mem, &memlen);
    if (!op.json && !memf) {
        fputs("kfsck: out of memory\n", stderr);
        return EXIT_FAIL;
    }
    out_init(&o, op.json ? stdout : memf, true);
    out_init(&e, stderr, false);
    out *perr = op.json ? &o : &e;
    report rep = {perr, NULL, 0, 0};
    kf_inputs in;
    int in_status = inputs_collect(argv + optind, argc - optind, &in);
    kf_replay *r = offsets_replay_new((size_t)op.max_batch, &rep);
    note_group_partitions(&in, op.want, op.nwant, op.offsets_partitions);
    kf_offsets_topic_result res;
    replay_offsets_topic(&in, r, (size_t)op.max_batch, perr, &res);
    names ns = {0};
    names_of_cluster(&ns, argv + optind, argc - optind, &in, op.max_batch);

    kf_groups *model;
    if (kf_groups_build(&model, r) != KF_OK)
        cli_oom();
    const kf_group *groups;
    size_t ngroups = kf_groups_list(model, &groups);
    if (op.nwant) {
        const char **ids = must(malloc((ngroups ? ngroups : 1) * sizeof *ids));
        for (size_t i = 0; i < ngroups; i++)
            ids[i] = groups[i].id;
        note_unmatched("group", op.want, op.nwant, ids, ngroups);
        free(ids);
    }
    for (size_t i = 0; i < ngroups; i++) {
        if (!selected(&op, groups[i].id))
            continue;
        print_group(&o, &groups[i], &ns);
        if (memf)
            flush_text(memf, &mem, &memlen);
    }
    if (memf) {
        fclose(memf);
        free(mem);
    }
    kf_groups_free(model);
    for (size_t i = 0; i < ns.n; i++)
        free(ns.v[i].name);
    free(ns.v);
    kf_replay_stats st = kf_replay_get_stats(r);
    kf_replay_free(r);
    kf_inputs_free(&in);
    fflush(stdout);
    if (in_status == EXIT_FAIL || res.unreadable)
        return EXIT_FAIL;
    return (res.uncovered || st.skipped || rep.errors) ? EXIT_DAMAGE : EXIT_CLEAN;
}
