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
    if (!nv || !s) {
        fputs("kfsck: out of memory\n", stderr);
        exit(EXIT_FAIL);
    }
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
            kf_bytes m;
            if (kf_file_read_all(pm, KF_SMALL_FILE_MAX, &m.data, &m.size, NULL) == KF_OK) {
                kf_partition_metadata md;
                char msg[128];
                if (kf_partition_metadata_parse(m.data, m.size, &md, msg, sizeof msg) == KF_OK)
                    names_add(ns, md.topic_id, (const uint8_t *)p->topic, strlen(p->topic));
                free(m.data);
            }
            free(pm);
        }
    }
}

/* ---- group records, decoded on demand ------------------------------------- */

typedef struct decoded {
    const kf_group_record *gr;
    kf_dtree t;
    kf_coord_record cr;
    const char *group;   /* the group id (points into the key bytes) */
    uint32_t glen;
    const char *member;  /* member id, for member-keyed types */
    uint32_t mlen;
} decoded;

static bool decode(decoded *d, const kf_group_record *gr)
{
    d->gr = gr;
    kf_dtree_reset(&d->t);
    int rc = kf_coord_decode(KF_COORD_OFFSETS, gr->key, (int32_t)gr->key_len, gr->value, (int32_t)gr->value_len,
                             &d->t, &d->cr);
    if (rc != KF_OK || !d->cr.key_ok || !d->cr.value_ok)
        return false;
    const kf_dnode *k = &d->t.nodes[d->cr.key_root];
    const kf_dnode *g = kf_dnode_field(&d->t, k, d->cr.key_type == 2 ? "group" : "group_id");
    const kf_dnode *m = kf_dnode_field(&d->t, k, "member_id");
    if (!g || g->kind != KF_V_STRING)
        return false;
    d->group = (const char *)g->p;
    d->glen = g->len;
    d->member = m && m->kind == KF_V_STRING ? (const char *)m->p : NULL;
    d->mlen = m && m->kind == KF_V_STRING ? m->len : 0;
    return true;
}

static const kf_dnode *vfield(const decoded *d, const char *name)
{
    return kf_dnode_field(&d->t, &d->t.nodes[d->cr.value_root], name);
}

static int kind_of_type(int16_t t)
{
    if (t == 2)
        return 0; /* classic */
    if ((t >= 3 && t <= 8) || t == 16)
        return 1; /* consumer */
    if (t >= 9 && t <= 15)
        return 2; /* share */
    if (t >= 17 && t <= 24)
        return 3; /* streams */
    return -1;
}

static const char *const KIND_NAMES[] = {"classic", "consumer", "share", "streams"};

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

static void classic_group(out *o, decoded *d)
{
    const kf_dtree *t = &d->t;
    const kf_dnode *members = vfield(d, "members");
    const kf_dnode *pt = vfield(d, "protocol_type");
    bool consumer = pt && pt->kind == KF_V_STRING && pt->len == 8 && !memcmp(pt->p, "consumer", 8);
    out_str(o, "state", members && members->n_children ? "stable" : "empty");
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

/* the records of one group, by type, already decoded */
typedef struct group_view {
    const kf_group_record **recs;
    size_t n;
} group_view;

typedef struct member_ref {
    const char *member; /* points into the record's key bytes */
    uint32_t mlen;
    const kf_group_record *rec;
} member_ref;

static int cmp_member_ref(const void *a, const void *b)
{
    const member_ref *x = a, *y = b;
    if (x->mlen != y->mlen)
        return x->mlen < y->mlen ? -1 : 1;
    return memcmp(x->member, y->member, x->mlen);
}

static void modern_group(out *o, int kind, const group_view *gv, const names *ns_in)
{
    names ns = *ns_in; /* add this group's partition-metadata names locally */
    names local = {0};
    decoded d = {0};
    int64_t group_epoch = -1, assignment_epoch = -1;
    size_t members = 0;
    for (size_t i = 0; i < gv->n; i++) {
        if (!decode(&d, gv->recs[i]))
            continue;
        int16_t ty = d.cr.key_type;
        if (ty == 3 || ty == 11 || ty == 17)
            group_epoch = kf_dnode_int(&d.t, &d.t.nodes[d.cr.value_root], "epoch", -1);
        else if (ty == 6 || ty == 12 || ty == 20)
            assignment_epoch = kf_dnode_int(&d.t, &d.t.nodes[d.cr.value_root], "assignment_epoch", -1);
        else if (ty == 5 || ty == 10 || ty == 19)
            members++;
        else if (ty == 4 || ty == 9 || ty == 18) {
            const kf_dnode *ts = vfield(&d, "topics");
            if (ts && ts->kind == KF_V_ARRAY)
                for (uint32_t c = ts->first_child; c != KF_DNODE_NONE; c = d.t.nodes[c].next) {
                    const kf_dnode *id = kf_dnode_field(&d.t, &d.t.nodes[c], "topic_id");
                    const kf_dnode *nm = kf_dnode_field(&d.t, &d.t.nodes[c], "topic_name");
                    if (id && nm && id->kind == KF_V_UUID && nm->kind == KF_V_STRING)
                        names_add(&local, id->p, nm->p, nm->len);
                }
        }
    }
    for (size_t i = 0; i < ns.n; i++)
        names_add(&local, ns.v[i].id, (const uint8_t *)ns.v[i].name, strlen(ns.v[i].name));
    out_int(o, "group_epoch", group_epoch);
    out_int(o, "assignment_epoch", assignment_epoch);
    /* group-level records: subscribed topics' metadata, resolved regexes, topology */
    bool regex_open = false, sub_meta = false, topology = false;
    for (size_t i = 0; i < gv->n; i++) {
        if (!decode(&d, gv->recs[i]))
            continue;
        int16_t ty = d.cr.key_type;
        const kf_dnode *v = &d.t.nodes[d.cr.value_root];
        if (ty == 4 || ty == 9 || ty == 18) {
            field_or_null(o, "subscription_metadata", &d.t, v, "topics");
            sub_meta = true;
        } else if (ty == 23) {
            out_obj_open(o, "topology");
            dtree_json_fields(o, &d.t, v);
            out_obj_close(o);
            topology = true;
        }
    }
    /* the group-level fields the kind has, null when no record holds them */
    if (kind == 1 && !sub_meta)
        out_null(o, "subscription_metadata");
    if (kind == 3 && !topology)
        out_null(o, "topology");
    for (size_t i = 0; i < gv->n; i++) {
        if (!decode(&d, gv->recs[i]) || d.cr.key_type != 16)
            continue;
        if (!regex_open)
            out_arr_open(o, "regular_expressions");
        regex_open = true;
        out_obj_open(o, NULL);
        field_or_null(o, "regular_expression", &d.t, &d.t.nodes[d.cr.key_root], "regular_expression");
        dtree_json_fields(o, &d.t, &d.t.nodes[d.cr.value_root]);
        out_obj_close(o);
    }
    if (!regex_open && kind == 1) {
        out_arr_open(o, "regular_expressions");
        regex_open = true;
    }
    if (regex_open)
        out_arr_close(o);
    out_str(o, "state", members ? "stable" : "empty");
    out_arr_open(o, "members");
    int16_t meta_type = kind == 1 ? 5 : kind == 2 ? 10 : 19;
    int16_t cur_type = kind == 1 ? 8 : kind == 2 ? 14 : 22;
    int16_t target_type = kind == 1 ? 7 : kind == 2 ? 13 : 21;
    /* each member's current and target assignment records, found by member
     * id (one decode per record, not one per member and record) */
    member_ref *cur = malloc((gv->n + 1) * sizeof *cur), *tgt = malloc((gv->n + 1) * sizeof *tgt);
    size_t ncur = 0, ntgt = 0;
    if (!cur || !tgt) {
        fputs("kfsck: out of memory\n", stderr);
        exit(EXIT_FAIL);
    }
    for (size_t i = 0; i < gv->n; i++) {
        if (!decode(&d, gv->recs[i]) || !d.member)
            continue;
        if (d.cr.key_type == cur_type)
            cur[ncur++] = (member_ref){d.member, d.mlen, gv->recs[i]};
        else if (d.cr.key_type == target_type)
            tgt[ntgt++] = (member_ref){d.member, d.mlen, gv->recs[i]};
    }
    qsort(cur, ncur, sizeof *cur, cmp_member_ref);
    qsort(tgt, ntgt, sizeof *tgt, cmp_member_ref);
    for (size_t i = 0; i < gv->n; i++) {
        if (!decode(&d, gv->recs[i]) || d.cr.key_type != meta_type)
            continue;
        out_obj_open(o, NULL);
        out_strn(o, "member_id", d.member, d.mlen);
        decoded a = {0};
        member_ref key = {d.member, d.mlen, NULL};
        const member_ref *cr = bsearch(&key, cur, ncur, sizeof *cur, cmp_member_ref);
        const member_ref *tr = bsearch(&key, tgt, ntgt, sizeof *tgt, cmp_member_ref);
        bool have_cur = cr && decode(&a, cr->rec);
        if (have_cur) {
            const kf_dnode *v = &a.t.nodes[a.cr.value_root];
            out_int(o, "member_epoch", kf_dnode_int(&a.t, v, "member_epoch", -1));
            field_or_null(o, "previous_member_epoch", &a.t, v, "previous_member_epoch");
            field_or_null(o, "state", &a.t, v, "state");
            if (kind == 3) {
                for (uint32_t c = v->first_child; c != KF_DNODE_NONE; c = a.t.nodes[c].next) {
                    const kf_dnode *f = &a.t.nodes[c];
                    if (f->name && strcmp(f->name, "member_epoch") && strcmp(f->name, "previous_member_epoch") &&
                        strcmp(f->name, "state"))
                        dtree_json_value(o, f->name, &a.t, f);
                }
            } else {
                partitions_list(o, "assignment", &a.t, kf_dnode_field(&a.t, v, "assigned_partitions"), &local, true);
                const kf_dnode *pend = kf_dnode_field(&a.t, v, "partitions_pending_revocation");
                if (pend)
                    partitions_list(o, "partitions_pending_revocation", &a.t, pend, &local, true);
            }
        } else {
            out_int(o, "member_epoch", -1);
            if (kind != 3) {
                out_arr_open(o, "assignment");
                out_arr_close(o);
            }
        }
        if (tr && decode(&a, tr->rec)) {
            const kf_dnode *v = &a.t.nodes[a.cr.value_root];
            if (kind == 3) {
                out_obj_open(o, "target_assignment");
                dtree_json_fields(o, &a.t, v);
                out_obj_close(o);
            } else {
                partitions_list(o, "target_assignment", &a.t, kf_dnode_field(&a.t, v, "topic_partitions"), &local,
                                true);
            }
        }
        kf_dtree_free(&a.t);
        dtree_json_fields(o, &d.t, &d.t.nodes[d.cr.value_root]);
        out_obj_close(o);
    }
    out_arr_close(o);
    free(cur);
    free(tgt);
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

static int cmp_name(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

typedef struct group_ref {
    char *group;
    const kf_group_record *rec;
    int16_t type;
} group_ref;

static int cmp_ref(const void *a, const void *b)
{
    const group_ref *x = a, *y = b;
    int c = strcmp(x->group, y->group);
    if (c)
        return c;
    return x->rec->source_offset < y->rec->source_offset ? -1 : x->rec->source_offset > y->rec->source_offset;
}

int cmd_groups(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"group", required_argument, 0, 'g'}, {"json", no_argument, 0, 'j'},
        {"offsets-partitions", required_argument, 0, 'n'},
        {"max-batch-bytes", required_argument, 0, 'B'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    const char *want[argc]; /* at most one per argument */
    size_t nwant = 0;
    bool json = false;
    uint64_t max_batch = KF_DEFAULT_MAX_BATCH_BYTES;
    int32_t offsets_partitions = 50;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'g': want[nwant++] = optarg; break;
        case 'j': json = true; break;
        case 'n': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (!*optarg || *end || v <= 0 || v > INT32_MAX)
                return opt_usage_error("groups", "--offsets-partitions needs a positive count, not", optarg,
                                       groups_usage);
            offsets_partitions = (int32_t)v;
            break;
        }
        case 'B':
            if (opt_positive_size("groups", "--max-batch-bytes", optarg, &max_batch))
                return EXIT_USAGE;
            break;
        case 'h': groups_usage(stdout); return EXIT_CLEAN;
        default: return opt_usage_error("groups", "unknown or incomplete option", argv[optind - 1], groups_usage);
        }
    }
    if (optind >= argc)
        return opt_usage_error("groups", "no PATH given", NULL, groups_usage);
    out o, e;
    /* Text mode: each group is written as JSON into memory, then printed as
     * indented text (json_text.c): one renderer for both. */
    char *mem = NULL;
    size_t memlen = 0;
    FILE *memf = json ? NULL : open_memstream(&mem, &memlen);
    if (!json && !memf) {
        fputs("kfsck: out of memory\n", stderr);
        return EXIT_FAIL;
    }
    out_init(&o, json ? stdout : memf, true);
    out_init(&e, stderr, false);
    out *perr = json ? &o : &e;
    report rep = {perr, NULL, 0, 0};
    kf_inputs in;
    int in_status = inputs_collect(argv + optind, argc - optind, &in);
    kf_replay_opts ro;
    kf_replay_opts_init(&ro);
    ro.max_batch_bytes = (size_t)max_batch;
    ro.problem_fn = report_problem;
    ro.problem_ctx = &rep;
    kf_replay *r = kf_replay_new(&ro);
    note_group_partitions(&in, want, nwant, offsets_partitions);
    kf_offsets_topic_result res;
    replay_offsets_topic(&in, r, (size_t)max_batch, perr, &res);
    names ns = {0};
    kf_metadata *meta = kraft_image_of(argv + optind, argc - optind, max_batch);
    names_from_metadata(&ns, meta); /* the cluster's own id -> name first */
    kf_metadata_free(meta);
    names_from_inputs(&ns, &in);

    /* every group id: from group records, offsets, and dead groups */
    const kf_group_record **recs;
    size_t nrec = kf_replay_group_records(r, &recs);
    const kf_offset_value **offs;
    size_t noff = kf_replay_offsets(r, &offs);
    const char *const *dead;
    size_t ndead = kf_replay_dead_groups(r, &dead);
    /* decode each record once for its group id, then sort by group */
    group_ref *refs = malloc((nrec + 1) * sizeof *refs);
    size_t nrefs = 0;
    decoded d = {0};
    for (size_t i = 0; i < nrec; i++)
        if (decode(&d, recs[i]))
            refs[nrefs++] = (group_ref){strndup(d.group, d.glen), recs[i], d.cr.key_type};
    qsort(refs, nrefs, sizeof *refs, cmp_ref);
    size_t cap = nrefs + noff + ndead + 1, nids = 0;
    char **ids = malloc(cap * sizeof *ids);
    for (size_t i = 0; i < nrefs; i++)
        ids[nids++] = refs[i].group;
    for (size_t i = 0; i < noff; i++)
        ids[nids++] = (char *)offs[i]->group;
    /* a deleted group (its metadata tombstoned) is listed, as dead, even
     * when its offsets are gone too; a group known only from offsets whose
     * offsets were all deleted is in none of these lists */
    for (size_t i = 0; i < ndead; i++)
        ids[nids++] = (char *)dead[i];
    qsort(ids, nids, sizeof *ids, cmp_name);

    const kf_group_record **mine = malloc((nrec + 1) * sizeof *mine);
    size_t j = 0; /* walks refs, sorted the same way as ids */
    for (size_t i = 0; i < nids; i++) {
        if (i && !strcmp(ids[i], ids[i - 1]))
            continue;
        const char *g = ids[i];
        group_view gv = {mine, 0};
        int kind = -1;
        const kf_group_record *classic = NULL;
        int64_t latest = -1;
        while (j < nrefs && strcmp(refs[j].group, g) < 0)
            j++;
        for (; j < nrefs && !strcmp(refs[j].group, g); j++) {
            mine[gv.n++] = refs[j].rec;
            int16_t ty = refs[j].type;
            if ((ty == 2 || ty == 3 || ty == 11 || ty == 17) && refs[j].rec->source_offset >= latest) {
                latest = refs[j].rec->source_offset;
                kind = kind_of_type(ty);
                classic = ty == 2 ? refs[j].rec : NULL;
            }
            if (kind < 0)
                kind = kind_of_type(ty);
        }
        bool selected = nwant == 0;
        for (size_t k = 0; k < nwant && !selected; k++)
            selected = !strcmp(want[k], g);
        if (!selected)
            continue;
        /* deleted: its last metadata record is a tombstone and none lives */
        int16_t dead_type = latest < 0 ? kf_replay_dead_group_type(r, g) : -1;
        out_begin(&o, "group");
        out_str(&o, "group", g);
        if (dead_type < 0 && kind == 0 && classic && decode(&d, classic)) {
            out_str(&o, "kind", "classic");
            classic_group(&o, &d);
        } else if (dead_type < 0 && kind > 0) {
            out_str(&o, "kind", KIND_NAMES[kind]);
            modern_group(&o, kind, &gv, &ns);
        } else if (dead_type > 2) {
            /* a deleted consumer, share or streams group: nothing left but its kind */
            out_str(&o, "kind", KIND_NAMES[kind_of_type(dead_type)]);
            out_str(&o, "state", "dead");
            out_null(&o, "group_epoch");
            out_null(&o, "assignment_epoch");
            out_arr_open(&o, "members");
            out_arr_close(&o);
        } else {
            /* known only from committed offsets, or a deleted classic group */
            out_str(&o, "kind", "classic");
            out_str(&o, "state", dead_type == 2 ? "dead" : "empty");
            out_null(&o, "protocol_type");
            out_null(&o, "generation");
            out_null(&o, "protocol");
            out_null(&o, "leader");
            out_null(&o, "current_state_timestamp");
            out_arr_open(&o, "members");
            out_arr_close(&o);
        }
        out_end(&o);
        if (memf) {
            fflush(memf);
            /* skip {"type":"group", */
            char *body = strchr(mem, ',');
            if (body) {
                *body = '{';
                json_text_print(stdout, body, memlen - (size_t)(body - mem), 0);
                fputc('\n', stdout);
            }
            rewind(memf);
            memlen = 0;
            mem[0] = 0;
        }
    }
    if (memf) {
        fclose(memf);
        free(mem);
    }
    for (size_t i = 0; i < nrefs; i++)
        free(refs[i].group);
    free(refs);
    free(ids);
    free(mine);
    kf_dtree_free(&d.t);
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
