/* Room jobs/replicas/: a partition's copies on several brokers, and what
 * each choice of leader keeps and loses.
 *   replicas.c            the driver (this file)
 *   replicas_datadir.c    a data dir's replicas, from its scan
 *   replicas_scanfile.c   the replicas of a saved scan's lines
 *   replicas_partition.c  one topic-partition's replicas judged
 *   replicas_copies.c     the data dir copies read together: conflicts, salvage
 *   replicas_rule.c       Kafka's follower truncation rule
 *
 * replicas.c: the replicas job's driver (include/kfsck/replicas.h). The
 * PATHs are classified by the walk of paths.h (a data dir, a scan file, or
 * KRaft's __cluster_metadata-0 for the ISR and ELR); inputs naming another
 * cluster.id than the first one that names one are refused; every input
 * becomes one or more streams of replicas in (topic, partition) order (a
 * scan file: one per run of its lines, replicas_scanfile.c; a data dir: its
 * scan on a thread, replicas_datadir.c), and the streams are merged by
 * topic-partition, each topic-partition's replicas judged
 * (replicas_partition.c) and handed to the caller before the next one is
 * read. */
#include "bytes/grow.h"
#include "bytes/opts.h"
#include "kfsck/replicas.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
#include "kfsck/sys/dirs.h"
#include "format/paths.h"
#include "jobs/replicas/replicas_internal.h"

void kf_replicas_opts_init(kf_replicas_opts *o)
{
    *o = (kf_replicas_opts)KF_REPLICAS_OPTIONS_INIT;
}

/* ---- the inputs ------------------------------------------------------------------- */

typedef struct input {
    const char *path;
    bool scan_file;
    bool refused;          /* of another cluster, or unreadable */
    rp_scan_file *sf;
    rp_datadir *dd;
} input;

typedef struct inputs {
    const kf_replicas_opts *o;
    kf_replicas_totals *tot;
    input *v;
    size_t n;
    char **kraft_paths;    /* the PATHs the KRaft metadata may be under */
    size_t nkraft;
    kf_one_cluster cluster; /* the cluster rule (paths.h) over data dirs and scan files */
} inputs;

static void unusable(inputs *in, const char *path, int err_no, const char *what)
{
    in->tot->unusable = true;
    if (in->o->error_fn)
        in->o->error_fn(in->o->error_ctx, path, err_no, what);
}

static void unusable_fn(void *ctx, const char *path, int err_no, const char *what)
{
    unusable(ctx, path, err_no, what);
}

/* KF_OK when cluster_id (NULL: none) may join the inputs before it; else
 * reported, KF_ERR_IO. what: how the input names it. */
static int same_cluster(inputs *in, const char *path, const char *cluster_id, const char *what)
{
    return kf_one_cluster_add(&in->cluster, path, what, cluster_id, unusable_fn, in);
}

static int add_input(inputs *in, const char *path, bool scan_file)
{
    input *nv = realloc(in->v, (in->n + 1) * sizeof *nv);
    if (!nv)
        return kf_error_nomem();
    in->v = nv;
    nv[in->n++] = (input){path, scan_file, false, NULL, NULL};
    return KF_OK;
}

static int add_kraft_path(inputs *in, const char *path)
{
    char **nk = realloc(in->kraft_paths, (in->nkraft + 1) * sizeof *nk);
    if (!nk)
        return kf_error_nomem();
    in->kraft_paths = nk;
    nk[in->nkraft++] = (char *)path;
    return KF_OK;
}

static int on_datadir(void *ctx, const kf_path_entry *e)
{
    inputs *in = ctx;
    const kf_datadir_info *dd = e->datadir;
    int rc = same_cluster(in, e->path, dd ? dd->cluster_id : NULL, "its meta.properties names");
    if (rc != KF_OK)
        return rc;
    if ((rc = add_kraft_path(in, e->path)) != KF_OK)
        return rc;
    return add_input(in, e->path, false);
}

static int on_file(void *ctx, const kf_path_entry *e)
{
    inputs *in = ctx;
    int err_no;
    rp_sniff what = rp_scan_file_sniff(e->path, &err_no);
    if (what != RP_SNIFF_SCAN) {
        if (err_no) {
            unusable(in, e->path, err_no, kf_path_error_str(err_no));
            return KF_ERR_IO;
        }
        if (what == RP_SNIFF_TOO_LONG) {
            unusable(in, e->path, 0,
                     "its first line is longer than " RP_SCAN_LINE_MAX_WORDS ", more than any line of `kfsck scan "
                     "--json` output: not read");
            return KF_ERR_IO;
        }
        unusable(in, e->path, 0,
                 "neither a broker data directory nor the output of `kfsck scan --json` (its first line is no scan "
                 "line)");
        return KF_ERR_IO;
    }
    return add_input(in, e->path, true);
}

static int on_partition(void *ctx, const kf_path_entry *e)
{
    inputs *in = ctx;
    if (!strcmp(e->topic, "__cluster_metadata") && e->partition == 0)
        return add_kraft_path(in, e->path); /* only its ISR and ELR are read */
    in->tot->partition_path = true;
    if (in->o->error_fn)
        in->o->error_fn(in->o->error_ctx, e->path, 0,
                        "a partition directory: give the data dir of each broker (or its `kfsck scan --json` output)");
    return KF_ERR_IO;
}

static void walk_error(void *ctx, const char *path, int err_no, const char *what)
{
    unusable(ctx, path, err_no, what);
}

static int collect_inputs(inputs *in, char *const *paths, size_t n)
{
    kf_paths_walk_opts wo;
    kf_paths_walk_opts_on(&wo, on_file, on_partition, on_datadir, in, walk_error, in);
    wo.empty_dir_is_datadir = true;
    wo.special_what = "not a regular file or directory";
    wo.other_dir_what = "not a broker data directory (no partition directories, meta.properties or checkpoints)";
    int rc = kf_paths_walk(paths, n, &wo);
    return rc == KF_ERR_IO ? KF_OK : rc;
}

/* ---- the KRaft metadata -------------------------------------------------------------- */

static void quiet(void *ctx, const kf_problem *p)
{
    (void)ctx;
    (void)p;
}

static void quiet_path(void *ctx, const char *path, int err_no, const char *what)
{
    (void)ctx;
    (void)path;
    (void)err_no;
    (void)what;
}

/* The image of the __cluster_metadata-0 among the PATHs, or NULL. Its own
 * damage is `kfsck metadata`'s to report; only the ISR and ELR are read. */
static int kraft_image(inputs *in, kf_metadata **m)
{
    *m = NULL;
    if (!in->nkraft)
        return KF_OK;
    kf_kraft_inputs ki;
    int rc = kf_kraft_inputs_collect(&ki, in->kraft_paths, in->nkraft, quiet_path, NULL);
    if (rc != KF_ERR_NOMEM && kf_kraft_inputs_found(&ki)) {
        kf_metadata_opts mo;
        kf_metadata_opts_init(&mo);
        mo.max_batch_bytes = in->o->max_batch_bytes;
        mo.problem_fn = quiet;
        rc = kf_metadata_build(m, &ki, &mo);
    }
    kf_kraft_inputs_free(&ki);
    return rc == KF_ERR_NOMEM ? rc : KF_OK;
}

/* ---- the merge ------------------------------------------------------------------------ */

typedef struct head {
    rp_stream s;
    const input *in;
    rp_rec rec;
    bool has;
} head;

static int on_cluster(void *ctx, const char *path, const char *cluster_id)
{
    return same_cluster(ctx, path, cluster_id, "its lines name");
}

static int add_head(head **hs, size_t *n, rp_stream s, const input *in)
{
    head *nh = realloc(*hs, (*n + 1) * sizeof *nh);
    if (!nh)
        return kf_error_nomem();
    *hs = nh;
    memset(&nh[*n], 0, sizeof nh[*n]);
    nh[*n].s = s;
    nh[*n].in = in;
    (*n)++;
    return KF_OK;
}

/* Opens every input's streams (scan files are read once here). */
static int open_streams(inputs *in, head **hs, size_t *nh)
{
    for (size_t i = 0; i < in->n; i++) {
        input *x = &in->v[i];
        int rc;
        if (x->scan_file) {
            kf_error_clear();
            rc = rp_scan_file_open(&x->sf, x->path, in->o->problem_fn, in->o->ctx, on_cluster, in);
            if (rc == KF_ERR_IO) { /* of another cluster (reported), unreadable or out of order */
                const kf_error *e = kf_error_last();
                if (e->code == KF_ERR_IO)
                    unusable(in, x->path, e->err_no, e->err_no ? kf_path_error_str(e->err_no) : e->message);
                x->refused = true;
                continue;
            }
            if (rc != KF_OK)
                return rc;
            in->tot->bad_lines += rp_scan_file_bad_lines(x->sf);
            for (size_t r = 0; r < rp_scan_file_runs(x->sf); r++)
                if ((rc = add_head(hs, nh, rp_scan_file_stream(x->sf, r), x)) != KF_OK)
                    return rc;
        } else {
            if ((rc = rp_datadir_start(&x->dd, x->path, in->o->max_batch_bytes)) != KF_OK)
                return rc;
            if ((rc = add_head(hs, nh, rp_datadir_stream(x->dd), x)) != KF_OK)
                return rc;
        }
    }
    return KF_OK;
}

/* The next record of h (h->has false at its end). */
static int advance(inputs *in, head *h)
{
    for (;;) {
        int rc = h->s.next(h->s.self, &h->rec);
        h->has = rc == 1;
        if (rc == KF_ERR_IO) {
            const kf_error *e = kf_error_last();
            if (h->in->scan_file) {
                unusable(in, h->in->path, e->err_no, kf_path_error_str(e->err_no));
                return KF_OK;
            }
            /* a data dir's entry that cannot be read, said at its stream's end */
            unusable(in, e->path[0] ? e->path : h->in->path, e->err_no, e->message);
            continue;
        }
        if (rc < 0)
            return rc;
        if (!h->has)
            return KF_OK;
        if (!h->rec.source)
            h->rec.source = h->in->path;
        /* the KRaft metadata partition is no replica set that leaders are elected for */
        if (strcmp(h->rec.topic, "__cluster_metadata") != 0)
            return KF_OK;
        rp_rec_free(&h->rec);
    }
}

typedef struct group {
    rp_rec *v;
    size_t n, cap;
} group;

static int take(group *g, head *h)
{
    if (!KF_GROW(g->v, g->n, g->cap, 8))
        return kf_error_nomem();
    g->v[g->n] = h->rec;
    memset(&h->rec, 0, sizeof h->rec);
    g->n++;
    return KF_OK;
}

static int merge(inputs *in, head *hs, size_t nh, const kf_metadata *meta)
{
    int rc = KF_OK;
    for (size_t i = 0; i < nh && rc == KF_OK; i++)
        rc = advance(in, &hs[i]);
    group g = {NULL, 0, 0};
    rp_judge_opts jo = {in->o->max_batch_bytes, meta, in->o->problem_fn, in->o->ctx};
    while (rc == KF_OK) {
        head *min = NULL;
        for (size_t i = 0; i < nh; i++)
            if (hs[i].has && (!min || rp_rec_cmp(&hs[i].rec, &min->rec) < 0))
                min = &hs[i];
        if (!min)
            break;
        rp_rec key = {0};
        if (!(key.topic = strdup(min->rec.topic))) {
            rc = KF_ERR_NOMEM;
            break;
        }
        key.partition = min->rec.partition;
        for (size_t i = 0; i < nh && rc == KF_OK; i++)
            while (rc == KF_OK && hs[i].has && rp_rec_cmp(&hs[i].rec, &key) == 0)
                if ((rc = take(&g, &hs[i])) == KF_OK)
                    rc = advance(in, &hs[i]);
        rp_rec_free(&key);
        bool at_risk = false;
        if (rc == KF_OK)
            rc = rp_judge(g.v, g.n, &jo, in->o->partition_fn, in->o->ctx, &at_risk);
        in->tot->partitions++;
        in->tot->at_risk += at_risk;
        for (size_t i = 0; i < g.n; i++)
            rp_rec_free(&g.v[i]);
        g.n = 0;
    }
    free(g.v);
    return rc;
}

int kf_replicas_run(char *const *paths, size_t n, const kf_replicas_opts *o, kf_replicas_totals *tot)
{
    kf_replicas_opts own;
    if (kf_opts_take(&own, o, sizeof own, KF_REPLICAS_OPTIONS_VERSION, &own.max_batch_bytes) != KF_OK)
        return KF_ERR_UNSUPPORTED;
    memset(tot, 0, sizeof *tot);
    inputs in;
    memset(&in, 0, sizeof in);
    in.o = &own;
    in.tot = tot;
    int rc = collect_inputs(&in, paths, n);
    kf_metadata *meta = NULL;
    head *hs = NULL;
    size_t nh = 0;
    if (rc == KF_OK && !tot->partition_path)
        rc = kraft_image(&in, &meta);
    if (rc == KF_OK && !tot->partition_path)
        rc = open_streams(&in, &hs, &nh);
    if (rc == KF_OK && !tot->partition_path)
        rc = merge(&in, hs, nh, meta);
    for (size_t i = 0; i < nh; i++)
        rp_rec_free(&hs[i].rec);
    free(hs);
    for (size_t i = 0; i < in.n; i++) {
        rp_scan_file_close(in.v[i].sf);
        rp_datadir_stop(in.v[i].dd);
    }
    free(in.v);
    free(in.kraft_paths);
    kf_one_cluster_free(&in.cluster);
    kf_metadata_free(meta);
    return rc;
}
