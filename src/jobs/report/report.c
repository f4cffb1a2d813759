/* report.c: the report job (report.h). The PATHs are walked once to find
 * the data dirs and the brokers they belong to; then every driver that
 * applies runs once, in the order the page reads (the data dir scan, a
 * start-up forecast per broker, the replicas when several brokers are
 * given, the KRaft metadata image, the __consumer_offsets replay and its
 * groups, transactions, compaction, tiered storage, the time histogram),
 * its callbacks feeding the command's JSON lines (report_json.c), the damage
 * map (report_map.c) and the sections (report_sections.c); the page is
 * written last (report_page.c), its verdicts first. Each part of the page
 * has a cap, so memory follows the drivers', not the page's. The exit
 * status is the highest of the commands' own rules (docs/kfsck.1). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
#include "bytes/grow.h"
#include "bytes/opts.h"
#include "jobs/report/report_internal.h"
#include "kfsck/offsets_job.h"
#include "format/paths.h"
#include "kfsck/topic_names.h"

void kf_report_opts_init(kf_report_opts *o)
{
    memset(o, 0, sizeof *o);
    o->version = KF_REPORT_OPTIONS_VERSION;
}

/* The page's budget, in bytes, so that it stays under 2 MiB whatever the
 * inputs: each command's share of the embedded JSON (720 KiB in all), each
 * section's table (672 KiB), the reset CSV (64 KiB, at most three times
 * that percent-encoded), the damage map (256 KiB, report_map.c); the rest
 * of the page is its fixed parts. */
static const size_t JSON_BUDGET[RJ_N] = {
    [RJ_SCAN] = 144 << 10,      [RJ_PREDICT] = 144 << 10, [RJ_REPLICAS] = 80 << 10,
    [RJ_OFFSETS] = 80 << 10,    [RJ_TXNS] = 48 << 10,     [RJ_COMPACTION] = 48 << 10,
    [RJ_METADATA] = 80 << 10,   [RJ_REMOTE] = 40 << 10,   [RJ_STATS] = 56 << 10,
};
static const char *const JSON_NAME[RJ_N] = {"scan", "predict", "replicas", "offsets", "txns",
                                            "compaction", "metadata", "remote", "stats"};

/* The partitions the damage map draws. */
#define MAP_PARTS 60

/* ---- problems of one command ------------------------------------------------------ */

typedef struct cmd_problems {
    report_run *R;
    int cmd;
    uint64_t errors, warnings;
    bool unreadable;
} cmd_problems;

static void on_problem(void *ctx, const kf_problem *p)
{
    cmd_problems *c = ctx;
    if (p->severity == KF_SEV_ERROR)
        c->errors++;
    else
        c->warnings++;
    if (!strcmp(p->code, KF_P_UNREADABLE)) {
        c->unreadable = true;
        c->R->sum->unreadable = true;
    }
    kf_problem_json(&c->R->json[c->cmd].w, p, NULL, NULL, NULL);
    rs_problem(c->R, JSON_NAME[c->cmd], p, NULL);
}

static void cmd_start(report_run *R, int cmd, cmd_problems *c)
{
    memset(c, 0, sizeof *c);
    c->R = R;
    c->cmd = cmd;
    R->json[cmd].used = true;
    R->sum->commands++;
    if (R->o->step_fn)
        R->o->step_fn(R->o->step_ctx, JSON_NAME[cmd]);
}

static void status(report_run *R, bool damage)
{
    if (damage)
        R->status = 1;
}

/* A command's outcome on the summary: some input could not be read (the
 * page says so), and whether it found damage (the exit status, status()). */
static void outcome(report_run *R, bool unreadable, bool damage)
{
    if (unreadable)
        R->sum->unreadable = true;
    status(R, damage);
}

static void path_error(void *ctx, const char *path, int err_no, const char *what)
{
    report_run *R = ctx;
    R->sum->unreadable = true;
    if (R->o->error_fn)
        R->o->error_fn(R->o->error_ctx, path, err_no, what);
}

/* A job's reader options as every command sets them (the cap, the tuning),
 * and its problems, the readers' and the job's own (*problem_fn and
 * *problem_ctx, fields of the job's options), counted in c. */
static void reader_opts(report_run *R, cmd_problems *c, kf_part_reader_opts *ro, kf_problem_fn *problem_fn,
                        void **problem_ctx)
{
    kf_part_reader_opts_init(ro);
    ro->max_batch_bytes = R->o->max_batch_bytes;
    ro->threads = R->o->threads;
    ro->chunk_bytes = R->o->chunk_bytes;
    ro->problem_fn = on_problem;
    ro->problem_ctx = c;
    *problem_fn = on_problem;
    *problem_ctx = c;
}

/* ---- the data dirs and their brokers ---------------------------------------------- */

static int add_datadir(void *ctx, const kf_path_entry *e)
{
    report_run *R = ctx;
    char **d = realloc(R->datadirs, (R->ndatadirs + 1) * sizeof *d);
    if (!d)
        return kf_error_nomem();
    R->datadirs = d;
    if (!(d[R->ndatadirs] = strdup(e->path)))
        return kf_error_nomem();
    R->ndatadirs++;
    const kf_datadir_info *di = e->datadir;
    bool has_id = di && di->has_meta && (di->meta.has_node_id || di->meta.has_broker_id);
    int32_t id = has_id ? (di->meta.has_node_id ? di->meta.node_id : di->meta.broker_id) : -1;
    rbroker *b = NULL;
    for (size_t i = 0; has_id && i < R->nbrokers; i++)
        if (R->brokers[i].has_id && R->brokers[i].id == id)
            b = &R->brokers[i];
    if (!b) {
        rbroker *nb = realloc(R->brokers, (R->nbrokers + 1) * sizeof *nb);
        if (!nb)
            return kf_error_nomem();
        R->brokers = nb;
        b = &nb[R->nbrokers++];
        memset(b, 0, sizeof *b);
        b->has_id = has_id;
        b->id = id;
    }
    char **bd = realloc(b->dirs, (b->ndirs + 1) * sizeof *bd);
    if (!bd)
        return kf_error_nomem();
    b->dirs = bd;
    bd[b->ndirs++] = d[R->ndatadirs - 1];
    return KF_OK;
}

static rbroker *broker_of_dir(report_run *R, const char *datadir)
{
    for (size_t i = 0; i < R->nbrokers; i++)
        for (size_t k = 0; k < R->brokers[i].ndirs; k++)
            if (datadir && !strcmp(R->brokers[i].dirs[k], datadir))
                return &R->brokers[i];
    return NULL;
}

/* ---- scan --------------------------------------------------------------------------- */

static uint64_t damaged_segments(const kf_datadir_partition *p)
{
    uint64_t n = 0;
    for (size_t i = 0; i < p->n_problems; i++) {
        const kf_problem *q = &p->problems[i];
        if (q->severity != KF_SEV_ERROR || !q->file)
            continue;
        size_t l = strlen(q->file);
        if (l < 4 || strcmp(q->file + l - 4, ".log"))
            continue;
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = p->problems[k].severity == KF_SEV_ERROR && p->problems[k].file &&
                   !strcmp(p->problems[k].file, q->file);
        n += !seen;
    }
    return n;
}

static void scan_partition(void *ctx, const kf_datadir_partition *p)
{
    report_run *R = ctx;
    kf_scan_partition_json(&R->json[RJ_SCAN].w, p);
    for (size_t i = 0; i < p->n_problems; i++)
        kf_problem_json(&R->json[RJ_SCAN].w, &p->problems[i], NULL, NULL, NULL);
    rmap_scan(&R->map, p);
    rs_finding_row(R, p);
    R->sum->damaged_segments += damaged_segments(p);
    if (p->errors)
        R->sum->damaged_partitions++;
    rbroker *b = broker_of_dir(R, p->id.datadir);
    if (b) {
        b->partitions++;
        b->errors += p->errors;
        b->warnings += p->warnings;
        b->damaged_partitions += p->errors > 0;
    }
}

static void scan_dir_problem(void *ctx, const kf_problem *p)
{
    report_run *R = ctx;
    kf_problem_json(&R->json[RJ_SCAN].w, p, NULL, NULL, NULL);
    rs_problem(R, "scan", p, R->current_datadir);
}

static int run_scan(report_run *R)
{
    if (!R->ndatadirs)
        return KF_OK;
    cmd_problems c;
    cmd_start(R, RJ_SCAN, &c);
    kf_datadir_scan_opts so;
    kf_datadir_scan_opts_init(&so);
    so.max_batch_bytes = R->o->max_batch_bytes;
    so.partition_fn = scan_partition;
    so.problem_fn = scan_dir_problem;
    so.ctx = R;
    kf_datadir_totals tot;
    memset(&tot, 0, sizeof tot);
    for (size_t i = 0; i < R->ndatadirs; i++) {
        R->current_datadir = R->datadirs[i];
        if (kf_datadir_scan(R->datadirs[i], &so, &tot) != KF_OK)
            return KF_ERR_NOMEM;
    }
    kf_scan_summary_json(&R->json[RJ_SCAN].w, R->ndatadirs, &tot);
    R->sum->datadirs = R->ndatadirs;
    R->sum->partitions = tot.partitions;
    R->scan_errors = tot.errors;
    R->scan_warnings = tot.warnings;
    outcome(R, tot.unreadable, tot.errors > 0);
    return KF_OK;
}

/* ---- predict, one broker at a time ----------------------------------------------- */

typedef struct predict_ctx {
    report_run *R;
    rbroker *b;
} predict_ctx;

static void predict_datadir(void *ctx, const kf_predict_datadir *d)
{
    predict_ctx *pc = ctx;
    rbroker *b = pc->b;
    kf_predict_datadir_json(&pc->R->json[RJ_PREDICT].w, d);
    b->acknowledged_missing += d->acknowledged_missing;
    b->damage_kept += d->damage_kept;
    b->groups_affected += d->groups_affected;
    b->harmed += d->n_harmed;
    b->routine += d->routine_recoveries;
    if (d->offline)
        b->dirs_offline++;
    if (d->stops_broker)
        b->stops = true;
    if (!d->clean_shutdown)
        b->clean_shutdown_all = false;
    if (d->first_fatal && !b->first_fatal[0])
        snprintf(b->first_fatal, sizeof b->first_fatal, "%s", d->first_fatal);
    for (size_t i = 0; i < d->n_harmed; i++) {
        size_t o = strlen(b->harmed_names);
        if (o + 80 >= sizeof b->harmed_names) {
            snprintf(b->harmed_names + o, sizeof b->harmed_names - o, "%s...", o ? ", " : "");
            break;
        }
        snprintf(b->harmed_names + o, sizeof b->harmed_names - o, "%s%.60s-%d", o ? ", " : "",
                 d->harmed[i]->id.topic ? d->harmed[i]->id.topic : "?", d->harmed[i]->id.partition);
    }
}

static void predict_action(void *ctx, const kf_predict_action *a)
{
    predict_ctx *pc = ctx;
    kf_predict_action_json(&pc->R->json[RJ_PREDICT].w, a);
    rmap_predict_action(&pc->R->map, a);
}

static void predict_partition(void *ctx, const kf_predict_partition *p)
{
    predict_ctx *pc = ctx;
    kf_predict_partition_json(&pc->R->json[RJ_PREDICT].w, p);
    rmap_predict(&pc->R->map, p);
}

static int run_predict(report_run *R)
{
    if (!R->nbrokers)
        return KF_OK;
    cmd_problems c;
    cmd_start(R, RJ_PREDICT, &c);
    for (size_t i = 0; i < R->nbrokers; i++) {
        rbroker *b = &R->brokers[i];
        predict_ctx pc = {R, b};
        b->clean_shutdown_all = true;
        kf_predict_opts po;
        kf_predict_opts_init(&po);
        po.max_batch_bytes = R->o->max_batch_bytes;
        po.has_now = true;
        po.now_ms = R->o->now_ms;
        po.datadir_fn = predict_datadir;
        po.action_fn = predict_action;
        po.partition_fn = predict_partition;
        po.ctx = &pc;
        int rc = kf_predict_run(b->dirs, b->ndirs, &po, &b->sum);
        if (rc == KF_ERR_NOMEM)
            return rc;
        b->predicted = rc == KF_OK;
        if (rc != KF_OK)
            continue;
        kf_predict_summary_json(&R->json[RJ_PREDICT].w, &b->sum);
        R->sum->offsets_lost += b->sum.offsets_lost;
        R->sum->acknowledged_missing += b->acknowledged_missing;
        R->sum->fatal += b->sum.fatal;
        status(R, b->sum.fatal || b->sum.offsets_lost || b->harmed);
    }
    R->sum->brokers = R->nbrokers;
    return KF_OK;
}

/* ---- replicas ----------------------------------------------------------------------- */

static void replicas_partition(void *ctx, const kf_replica_partition *p)
{
    report_run *R = ((cmd_problems *)ctx)->R;
    kf_replicas_partition_json(&R->json[RJ_REPLICAS].w, p);
    rs_election(R, p);
}

static int run_replicas(report_run *R)
{
    if (R->nbrokers < 2)
        return KF_OK;
    cmd_problems c;
    cmd_start(R, RJ_REPLICAS, &c);
    kf_replicas_opts ro;
    kf_replicas_opts_init(&ro);
    ro.max_batch_bytes = R->o->max_batch_bytes;
    ro.partition_fn = replicas_partition;
    ro.problem_fn = on_problem; /* ctx: the cmd_problems, which also leads to R */
    ro.ctx = &c;
    ro.error_fn = path_error;
    ro.error_ctx = R;
    kf_replicas_totals tot;
    int rc = kf_replicas_run(R->datadirs, R->ndatadirs, &ro, &tot);
    if (rc == KF_ERR_NOMEM)
        return rc;
    R->replicas_ran = true;
    R->replicas_partitions = tot.partitions;
    R->replicas_at_risk = tot.at_risk;
    kf_replicas_summary_json(&R->json[RJ_REPLICAS].w, &tot);
    status(R, tot.at_risk || tot.bad_lines);
    return KF_OK;
}

/* ---- the KRaft metadata -------------------------------------------------------------- */

static int run_metadata(report_run *R, char *const *paths, size_t n, kf_metadata **out)
{
    *out = NULL;
    kf_kraft_inputs ki;
    int rc = kf_kraft_inputs_collect(&ki, paths, n, NULL, NULL);
    if (rc == KF_ERR_NOMEM) {
        kf_kraft_inputs_free(&ki);
        return rc;
    }
    if (!kf_kraft_inputs_found(&ki)) {
        kf_kraft_inputs_free(&ki);
        return KF_OK;
    }
    cmd_problems c;
    cmd_start(R, RJ_METADATA, &c);
    kf_metadata_opts mo;
    kf_metadata_opts_init(&mo);
    mo.max_batch_bytes = R->o->max_batch_bytes;
    mo.problem_fn = on_problem;
    mo.problem_ctx = &c;
    rc = kf_metadata_build(out, &ki, &mo);
    kf_kraft_inputs_free(&ki);
    if (rc == KF_ERR_NOMEM || !*out)
        return KF_ERR_NOMEM;
    R->metadata_ran = true;
    kf_metadata_json(&R->json[RJ_METADATA].w, *out, false);
    rs_cluster(R, *out);
    status(R, c.errors > 0 || kf_metadata_get_info(*out)->damaged > 0);
    return KF_OK;
}

/* ---- offsets and groups -------------------------------------------------------------- */

static bool has_topic(const kf_inputs *in, const char *topic)
{
    for (size_t i = 0; i < in->n; i++)
        if (!strcmp(in->parts[i].topic, topic))
            return true;
    return false;
}

static void offsets_load_error(void *ctx, const kf_coord_load_error *e)
{
    kf_problem p = *e->problem;
    kf_problem_add_int(&p, "source_partition", e->source_partition);
    kf_problem_add_text(&p, "decode_error", e->decode_error ? e->decode_error : "");
    on_problem(ctx, &p);
}

static int run_offsets(report_run *R, char *const *paths, size_t n, const kf_inputs *in)
{
    if (!has_topic(in, "__consumer_offsets"))
        return KF_OK;
    cmd_problems c;
    cmd_start(R, RJ_OFFSETS, &c);
    kf_topic_names *names = NULL;
    if (kf_topic_names_build(&names, paths, n, in, R->o->max_batch_bytes) != KF_OK)
        return KF_ERR_NOMEM;
    kf_offsets_job_opts jo;
    kf_offsets_job_opts_init(&jo);
    reader_opts(R, &c, &jo.read, &jo.problem_fn, &jo.problem_ctx);
    jo.names = names;
    jo.load_error_fn = offsets_load_error;
    jo.load_error_ctx = &c;
    kf_offsets_job *j = NULL;
    int rc = kf_offsets_job_run(&j, in, &jo);
    if (rc != KF_OK) {
        kf_topic_names_free(names);
        return rc;
    }
    const kf_offsets_row *rows;
    size_t nrows;
    rc = kf_offsets_job_table(j, &rows, &nrows);
    if (rc == KF_OK) {
        for (size_t i = 0; i < nrows; i++)
            kf_offsets_row_json(&R->json[RJ_OFFSETS].w, &rows[i], false);
        rs_offsets(R, j, rows, nrows);
        kf_offsets_job_result res = kf_offsets_job_get_result(j);
        R->offsets_ran = true;
        R->offsets_rows = nrows;
        R->offsets_partitions = res.partitions;
        outcome(R, res.unreadable, res.uncovered || res.skipped || c.errors);
    }
    kf_offsets_job_free(j);
    kf_topic_names_free(names);
    return rc;
}

/* ---- txns ------------------------------------------------------------------------------ */

typedef struct txns_ctx {
    report_run *R;
    bool coord;
} txns_ctx;

static void txns_coordinator(void *ctx, const kf_txn_coord_inputs *v)
{
    txns_ctx *t = ctx;
    t->coord = true;
    kf_txns_coordinator_json(&t->R->json[RJ_TXNS].w, v);
}

static void txns_partition(void *ctx, const kf_partition *p, const kf_txn_report *open, size_t nopen,
                           const kf_txns_result *res)
{
    txns_ctx *t = ctx;
    kf_txns_partition_json(&t->R->json[RJ_TXNS].w, p, open, nopen, t->coord, res);
    for (size_t i = 0; i < nopen; i++)
        rs_txn_open(t->R, p, &open[i]);
}

static int run_txns(report_run *R, const kf_inputs *in)
{
    if (!kf_txns_data_partitions(in))
        return KF_OK;
    cmd_problems c;
    cmd_start(R, RJ_TXNS, &c);
    txns_ctx t = {R, false};
    kf_txns_run_opts to;
    kf_txns_run_opts_init(&to);
    reader_opts(R, &c, &to.read, &to.problem_fn, &to.problem_ctx);
    to.has_hanging_ms = true;
    to.hanging_ms = KF_TXN_MAX_TIMEOUT_MS_DEFAULT;
    to.coordinator_fn = txns_coordinator;
    to.partition_fn = txns_partition;
    to.ctx = &t;
    kf_txns_totals tot;
    int rc = kf_txns_run(in, &to, &tot);
    if (rc != KF_OK)
        return rc;
    R->txns_ran = true;
    kf_txns_summary_json(&R->json[RJ_TXNS].w, &tot, c.errors, c.warnings);
    R->sum->open_transactions = tot.open_transactions;
    R->sum->hanging_transactions = tot.hanging_transactions;
    outcome(R, tot.unreadable,
            tot.hanging_transactions || tot.markers_missing || tot.incomplete_partitions || c.errors);
    return KF_OK;
}

/* ---- compaction ------------------------------------------------------------------------- */

static int compaction_result(void *ctx, const kf_compaction_result *r)
{
    report_run *R = ctx;
    if (r->compacted_by == KF_COMPACTED_NOT)
        return KF_OK;
    kf_compaction_json(&R->json[RJ_COMPACTION].w, r);
    rs_compaction(R, r);
    return KF_OK;
}

static int run_compaction(report_run *R, char *const *paths, size_t n, const kf_inputs *in, const kf_metadata *m)
{
    if (!in->n)
        return KF_OK;
    cmd_problems c;
    cmd_start(R, RJ_COMPACTION, &c);
    kf_compaction_opts co;
    kf_compaction_opts_init(&co);
    reader_opts(R, &c, &co.read, &co.problem_fn, &co.problem_ctx);
    co.now_ms = R->o->now_ms;
    co.metadata = m;
    co.paths = paths;
    co.npaths = n;
    kf_compaction_totals tot;
    int rc = kf_compaction_run(in, &co, compaction_result, R, &tot);
    if (rc == KF_ERR_NOMEM)
        return rc;
    R->compaction_ran = true;
    kf_compaction_summary_json(&R->json[RJ_COMPACTION].w, &tot, c.errors, c.warnings);
    R->sum->pinned_compactions = tot.pinned;
    outcome(R, tot.unreadable, tot.pinned > 0);
    return KF_OK;
}

/* ---- remote ----------------------------------------------------------------------------- */

static int remote_partition(void *ctx, const kf_remote_partition *p)
{
    report_run *R = ctx;
    kf_remote_partition_json(&R->json[RJ_REMOTE].w, p);
    rmap_remote(&R->map, p);
    return KF_OK;
}

static int remote_index(void *ctx, const kf_remote_index *e)
{
    report_run *R = ctx;
    kf_remote_index_json(&R->json[RJ_REMOTE].w, e);
    return KF_OK;
}

static int run_remote(report_run *R, char *const *paths, size_t n, const kf_inputs *in, const kf_metadata *m)
{
    if (!has_topic(in, "__remote_log_metadata"))
        return KF_OK;
    cmd_problems c;
    cmd_start(R, RJ_REMOTE, &c);
    kf_remote_opts ro;
    kf_remote_opts_init(&ro);
    reader_opts(R, &c, &ro.read, &ro.problem_fn, &ro.problem_ctx);
    ro.now_ms = R->o->now_ms;
    ro.metadata = m;
    ro.paths = paths;
    ro.npaths = n;
    kf_remote_totals tot;
    int rc = kf_remote_run(in, &ro, remote_partition, remote_index, R, &tot);
    if (rc == KF_ERR_NOMEM)
        return rc;
    R->remote_ran = true;
    kf_remote_summary_json(&R->json[RJ_REMOTE].w, &tot, c.errors, c.warnings);
    outcome(R, rc != KF_OK || tot.unreadable,
            tot.offsets_in_no_tier || tot.counts[KF_REMOTE_MISSING_IN_STORAGE] || tot.incomplete);
    return KF_OK;
}

/* ---- stats ------------------------------------------------------------------------------ */

static void stats_group(void *ctx, const kf_stats_group *g, const kf_tbucket *b, size_t n)
{
    report_run *R = ctx;
    kf_stats_buckets_json(&R->json[RJ_STATS].w, g, b, n, false);
    /* the summaries follow every group's buckets, as in --json */
    if (!KF_GROW(R->stats_sums, R->nstats_sums, R->stats_sums_cap, 16)) {
        R->stats_oom = true;
        return;
    }
    R->stats_sums[R->nstats_sums++] = *g;
    rs_stats_group(R, g, b, n);
}

static int run_stats(report_run *R, const kf_inputs *in)
{
    if (!in->n)
        return KF_OK;
    cmd_problems c;
    cmd_start(R, RJ_STATS, &c);
    kf_stats_opts so;
    kf_stats_opts_init(&so);
    reader_opts(R, &c, &so.read, &so.problem_fn, &so.problem_ctx);
    so.group_fn = stats_group;
    so.group_ctx = R;
    kf_stats_result res;
    int rc = kf_stats_run(in, &so, &res);
    for (size_t i = 0; rc == KF_OK && i < R->nstats_sums; i++)
        kf_stats_summary_json(&R->json[RJ_STATS].w, &R->stats_sums[i], false, KF_STATS_BUCKET_MS_DEFAULT);
    free(R->stats_sums);
    R->stats_sums = NULL;
    if (rc == KF_OK && R->stats_oom)
        rc = KF_ERR_NOMEM;
    if (rc != KF_OK)
        return rc;
    R->stats_ran = true;
    outcome(R, res.unreadable, res.damaged);
    return KF_OK;
}

/* ---- the run ---------------------------------------------------------------------------- */

static void run_init(report_run *R, const kf_report_opts *o, kf_report_summary *sum)
{
    memset(R, 0, sizeof *R);
    R->o = o;
    R->sum = sum;
    for (int i = 0; i < RJ_N; i++)
        jl_init(&R->json[i], JSON_NAME[i], JSON_BUDGET[i]);
    rmap_init(&R->map, MAP_PARTS);
    rb_init(&R->findings, 112 << 10);
    rb_init(&R->elections, 112 << 10);
    rb_init(&R->groups, 64 << 10);
    rb_init(&R->group_rows, 64 << 10);
    rb_init(&R->txns, 48 << 10);
    rb_init(&R->compaction, 48 << 10);
    rb_init(&R->cluster, 80 << 10);
    rb_init(&R->stats, 96 << 10);
    rb_init(&R->problems, 48 << 10);
    rb_init(&R->reset_csv, 64 << 10);
}

static bool run_oom(const report_run *R)
{
    const rbuf *bufs[] = {&R->findings, &R->elections, &R->groups, &R->group_rows, &R->txns, &R->compaction,
                          &R->cluster,  &R->stats,     &R->problems, &R->reset_csv};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i]->oom)
            return true;
    for (int i = 0; i < RJ_N; i++)
        if (R->json[i].out.oom)
            return true;
    return R->map.oom;
}

static void run_free(report_run *R)
{
    for (int i = 0; i < RJ_N; i++)
        jl_free(&R->json[i]);
    rmap_free(&R->map);
    rbuf *bufs[] = {&R->findings, &R->elections, &R->groups, &R->group_rows, &R->txns, &R->compaction,
                    &R->cluster,  &R->stats,     &R->problems, &R->reset_csv};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        rb_free(bufs[i]);
    for (size_t i = 0; i < R->nbrokers; i++)
        free(R->brokers[i].dirs);
    free(R->brokers);
    for (size_t i = 0; i < R->ndatadirs; i++)
        free(R->datadirs[i]);
    free(R->datadirs);
}

static int drivers(report_run *R, char *const *paths, size_t n)
{
    kf_paths_walk_opts wo;
    kf_paths_walk_opts_on(&wo, NULL, NULL, add_datadir, R, path_error, R);
    wo.empty_dir_is_datadir = true;
    int rc = kf_paths_walk(paths, n, &wo);
    if (rc != KF_OK && rc != KF_ERR_IO)
        return rc;
    if ((rc = run_scan(R)) != KF_OK || (rc = run_predict(R)) != KF_OK || (rc = run_replicas(R)) != KF_OK)
        return rc;
    kf_metadata *m = NULL;
    if ((rc = run_metadata(R, paths, n, &m)) != KF_OK)
        return rc;
    kf_inputs in;
    rc = kf_inputs_collect(&in, paths, n, NULL, NULL);
    if (rc == KF_ERR_NOMEM) {
        kf_metadata_free(m);
        kf_inputs_free(&in);
        return rc;
    }
    R->found = R->ndatadirs || in.n || m;
    if ((rc = run_offsets(R, paths, n, &in)) == KF_OK && (rc = run_txns(R, &in)) == KF_OK &&
        (rc = run_compaction(R, paths, n, &in, m)) == KF_OK && (rc = run_remote(R, paths, n, &in, m)) == KF_OK)
        rc = run_stats(R, &in);
    kf_inputs_free(&in);
    kf_metadata_free(m);
    return rc;
}

int kf_report_run(char *const *paths, size_t n, const kf_report_opts *given, kf_report_summary *sum)
{
    kf_report_opts o;
    if (kf_opts_take(&o, given, sizeof o, KF_REPORT_OPTIONS_VERSION, &o.max_batch_bytes) != KF_OK)
        return KF_ERR_UNSUPPORTED;
    if (!o.write_fn)
        return kf_error_set(KF_ERR_UNSUPPORTED, 0, NULL, "kf_report_run: no write_fn in its options");
    kf_report_summary local;
    if (!sum)
        sum = &local;
    memset(sum, 0, sizeof *sum);
    report_run R;
    run_init(&R, &o, sum);
    int rc = kf_paths_one_cluster(paths, n, o.error_fn, o.error_ctx);
    if (rc == KF_ERR_IO) {
        sum->mixed_clusters = true;
        sum->unreadable = true;
        run_free(&R);
        return KF_OK;
    }
    if (rc == KF_OK)
        rc = drivers(&R, paths, n);
    if (rc == KF_OK && run_oom(&R))
        rc = KF_ERR_NOMEM;
    if (rc == KF_OK) {
        sum->status = R.status;
        sum->nothing = !R.found;
        if (R.found)
            rc = report_page_write(&R, o.title ? o.title : "kfsck report");
    }
    run_free(&R);
    return rc;
}
