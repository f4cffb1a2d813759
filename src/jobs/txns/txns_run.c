/* txns_run.c: the txns job over the inputs (include/kfsck/txns.h), what
 * `kfsck txns` runs: the coordinator's view of the __transaction_state
 * partitions among the inputs (also what the compaction job names a
 * pinning transaction by), then each data partition's transactions read
 * against it, and the sums. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/grow.h"
#include "bytes/error.h"
#include "bytes/opts.h"
#include "kfsck/txns.h"

void kf_txns_run_opts_init(kf_txns_run_opts *o)
{
    *o = (kf_txns_run_opts)KF_TXNS_RUN_OPTIONS_INIT;
}

static bool is_txn_state(const kf_partition *p) { return !strcmp(p->topic, KF_TXN_STATE_TOPIC); }

static bool is_data_partition(const kf_partition *p)
{
    return !is_txn_state(p) && strcmp(p->topic, "__cluster_metadata");
}

size_t kf_txns_data_partitions(const kf_inputs *in)
{
    size_t n = 0;
    for (size_t i = 0; i < in->n; i++)
        n += is_data_partition(&in->parts[i]);
    return n;
}

/* ---- the coordinator's view ---------------------------------------------- */

void kf_txn_coord_inputs_free(kf_txn_coord_inputs *v)
{
    kf_txn_coord_free(v->coord);
    free(v->partitions);
    memset(v, 0, sizeof *v);
}

int kf_txn_coord_read_inputs(kf_txn_coord_inputs *v, const kf_inputs *in, const kf_part_reader_opts *ro,
                             kf_problem_fn fn, void *ctx)
{
    memset(v, 0, sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < in->n; i++)
        n += is_txn_state(&in->parts[i]);
    if (!n)
        return KF_OK;
    if (!(v->partitions = malloc(n * sizeof *v->partitions)))
        return kf_error_nomem();
    int rc = kf_txn_coord_new(&v->coord);
    for (size_t i = 0; i < in->n && rc == KF_OK; i++) {
        const kf_partition *p = &in->parts[i];
        if (!is_txn_state(p))
            continue;
        v->partitions[v->npartitions++] = p->partition;
        kf_part_result pr;
        rc = kf_txn_coord_read(v->coord, p, ro, fn, ctx, &pr);
        v->incomplete |= pr.uncovered > 0;
        v->unreadable |= pr.unreadable;
    }
    return rc;
}

/* ---- the data partitions ------------------------------------------------- */

typedef struct txns_run {
    const kf_txns_run_opts *o;
    kf_txns_totals *tot;
    kf_txn_report *open;     /* the partition's open transactions */
    size_t nopen, cap;
    int rc;                  /* KF_ERR_NOMEM when keeping one failed */
} txns_run;

/* The run's problem callback: the caller's, and a file that cannot be
 * read noted in the totals. */
static void run_problem(void *ctx, const kf_problem *p)
{
    txns_run *R = ctx;
    if (!strcmp(p->code, KF_P_UNREADABLE))
        R->tot->unreadable = true;
    if (R->o->problem_fn)
        R->o->problem_fn(R->o->problem_ctx, p);
}

static void keep_open(void *ctx, const kf_txn_report *r)
{
    txns_run *R = ctx;
    if (!KF_GROW(R->open, R->nopen, R->cap, 16)) {
        R->rc = kf_error_nomem();
        return;
    }
    R->open[R->nopen++] = *r;
}

static void add_up(kf_txns_totals *t, const kf_txns_result *res)
{
    t->partitions++;
    t->open_transactions += res->open_transactions;
    t->hanging_transactions += res->hanging_transactions;
    t->committed_transactions += res->committed_transactions;
    t->aborted_transactions += res->aborted_transactions;
    t->markers_missing += res->markers_missing;
    t->txnindex_problems += res->txnindex_missing + res->txnindex_extra;
    t->incomplete_partitions += res->incomplete;
}

static int read_partition(txns_run *R, const kf_partition *p, kf_txn_coord *coord)
{
    const kf_txns_run_opts *o = R->o;
    kf_txns_opts to;
    kf_txns_opts_init(&to);
    to.max_batch_bytes = o->read.max_batch_bytes;
    to.has_hanging_ms = o->has_hanging_ms;
    to.hanging_ms = o->hanging_ms;
    to.coord = coord;
    to.problem_fn = run_problem;
    to.problem_ctx = R;
    kf_txns *t;
    kf_txns_result res;
    kf_part_result pr;
    R->nopen = 0;
    int rc = kf_txns_read(&t, p, &to, &o->read, keep_open, R, &res, &pr);
    if (rc == KF_OK)
        rc = R->rc;
    if (rc == KF_OK) {
        R->tot->unreadable |= pr.unreadable;
        if (o->partition_fn)
            o->partition_fn(o->ctx, p, R->open, R->nopen, &res);
        add_up(R->tot, &res);
    }
    kf_txns_close(t);
    return rc;
}

int kf_txns_run(const kf_inputs *in, const kf_txns_run_opts *o, kf_txns_totals *tot)
{
    kf_txns_totals t;
    memset(&t, 0, sizeof t);
    if (tot)
        *tot = t;
    kf_txns_run_opts own;
    if (kf_opts_take(&own, o, sizeof own, KF_TXNS_RUN_OPTIONS_VERSION, &own.read.max_batch_bytes) != KF_OK)
        return KF_ERR_UNSUPPORTED;
    kf_opts_nested(&own.read.version, KF_PART_READER_OPTIONS_VERSION);
    o = &own;
    txns_run R = {.o = o, .tot = &t};
    kf_txn_coord_inputs v;
    int rc = kf_txn_coord_read_inputs(&v, in, &o->read, run_problem, &R);
    t.unreadable |= v.unreadable;
    if (rc == KF_OK && v.coord && o->coordinator_fn)
        o->coordinator_fn(o->ctx, &v);
    for (size_t i = 0; i < in->n && rc == KF_OK; i++)
        if (is_data_partition(&in->parts[i]))
            rc = read_partition(&R, &in->parts[i], v.coord);
    free(R.open);
    kf_txn_coord_inputs_free(&v);
    if (tot)
        *tot = t;
    return rc;
}
