/* cmd_txns.c: `kfsck txns`: open, hanging and aborted transactions. The
 * library's driver (kf_txns_run, src/jobs/txns/txns_run.c) replays the
 * `__transaction_state` partitions among the inputs first (the
 * coordinator's view), then reads every data partition in offset order over
 * the union of its copies: the transactions with no marker yet, the last
 * stable offset, the COMMIT/ABORT counts and the .txnindex problems. This
 * file only parses options, calls it and prints. */
#include <ctype.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/partitions.h"
#include "cli/walk.h"
#include "kfsck/stats.h"
#include "kfsck/txns.h"

typedef struct txns_run {
    bool json;
    out *o;
    report rep;               /* problems: stdout, JSON lines or text lines */
    bool coord;               /* a __transaction_state partition was among the inputs */
} txns_run;

/* ---- the coordinator's view ----------------------------------------------- */

static void print_coordinator(void *ctx, const kf_txn_coord_inputs *v)
{
    txns_run *R = ctx;
    size_t ids = kf_txn_coord_count(v->coord);
    R->coord = true;
    if (R->json) {
        kf_txns_coordinator_json(&R->o->w, v);
    } else {
        tprintf(R->o->f, "coordinator view: %zu %s-N partition%s, %zu transactional id%s%s\n\n", v->npartitions,
                KF_TXN_STATE_TOPIC, v->npartitions == 1 ? "" : "s", ids, ids == 1 ? "" : "s",
                v->incomplete ? " (damaged batches skipped: it may be incomplete)" : "");
    }
}

/* ---- one partition ----------------------------------------------------------- */

static void print_open_text(txns_run *R, const kf_partition *p, const kf_txn_report *r)
{
    FILE *f = R->o->f;
    const kf_open_txn *x = &r->txn;
    tprintf(f, "  %s producer %" PRId64 " epoch %d, from offset %" PRId64, r->hanging ? "HANGING" : "open   ",
            x->producer_id, x->producer_epoch, x->first_offset);
    if (x->last_offset >= 0)
        tprintf(f, " to %" PRId64, x->last_offset);
    tprintf(f, ": %" PRIu64 " batch%s, %" PRIu64 " record%s", x->batches, x->batches == 1 ? "" : "es", x->records,
            x->records == 1 ? "" : "s");
    if (x->batches && !x->has_first_timestamp)
        tprintf(f, " since the producer snapshot");
    fputc('\n', f);
    char a[40], d[32];
    if (x->has_first_timestamp) {
        kf_format_time(x->first_timestamp, true, a, sizeof a);
        tprintf(f, "          began %s", a);
        if (r->has_age) {
            kf_format_duration(r->age_ms, d, sizeof d);
            tprintf(f, " (age %s)", d);
        }
    } else {
        tprintf(f, "          began before the log's first segment (time unknown)");
    }
    if (r->has_idle) {
        kf_format_duration(r->idle_ms, d, sizeof d);
        tprintf(f, "; no batch of the producer for %s of the partition's time line", d);
    }
    fputc('\n', f);
    if (R->coord) {
        const kf_txn_coord_entry *e = r->coordinator;
        if (!e) {
            tprintf(f, "          coordinator: no transactional id has this producer id\n");
        } else {
            const char *st = kf_txn_state_name(e->state);
            tprintf(f, "          coordinator: transactional id \"%s\", state ", e->transactional_id);
            if (st)
                tprintf(f, "%s", st);
            else
                tprintf(f, "%d (unknown)", e->state);
            tprintf(f, ", epoch %d%s\n", e->producer_epoch,
                    r->marker_missing ? " - completed there, but its marker is missing here" : "");
        }
    }
    if (r->hanging || r->marker_missing) {
        char label[300];
        partition_label(p, label, sizeof label);
        if (p->topic[0] && p->partition >= 0) {
            tshell(f, "          to abort it on the live cluster: kafka-transactions.sh --bootstrap-server HOST:PORT "
                      "abort --topic ", p->topic);
            tprintf(f, " --partition %d --start-offset %" PRId64 "\n", p->partition, x->first_offset);
        }
    }
}

static void print_partition(void *ctx, const kf_partition *p, const kf_txn_report *open, size_t nopen,
                            const kf_txns_result *res)
{
    txns_run *R = ctx;
    out *o = R->o;
    if (R->json) {
        kf_txns_partition_json(&o->w, p, open, nopen, R->coord, res);
        return;
    }
    FILE *f = o->f;
    char label[300];
    partition_label(p, label, sizeof label);
    tprintf(f, "%s: ", label);
    if (res->has_log_end)
        tprintf(f, "log end %" PRId64 ", ", res->log_end_offset);
    if (res->has_last_stable)
        tprintf(f, "last stable offset %" PRId64, res->last_stable_offset);
    else
        tprintf(f, "no batches");
    if (res->open_transactions)
        tprintf(f, " (held by %" PRIu64 " open transaction%s, %" PRIu64 " hanging)", res->open_transactions,
                res->open_transactions == 1 ? "" : "s", res->hanging_transactions);
    else
        tprintf(f, " (no open transaction)");
    tprintf(f, "; %" PRIu64 " committed, %" PRIu64 " aborted\n", res->committed_transactions,
            res->aborted_transactions);
    for (size_t i = 0; i < nopen; i++)
        print_open_text(R, p, &open[i]);
    if (res->snapshot)
        tprintf(f, "  producer state from %s\n", res->snapshot);
    if (res->start_unknown && res->open_transactions)
        tprintf(f,
                "  note: the log starts at offset %" PRId64 " with no producer snapshot there: a transaction "
                "begun earlier shows its first batch at or after it\n",
                res->start_offset);
    if (res->txnindex_missing || res->txnindex_extra)
        tprintf(f, "  .txnindex: %" PRIu64 " missing and %" PRIu64 " extra entr%s\n", res->txnindex_missing,
                res->txnindex_extra, res->txnindex_missing + res->txnindex_extra == 1 ? "y" : "ies");
    if (res->incomplete)
        tprintf(f, "  damaged batches were skipped: transactions or markers may be missing from this answer\n");
}

static void print_summary(txns_run *R, const kf_txns_totals *t)
{
    if (R->json) {
        kf_txns_summary_json(&R->o->w, t, R->rep.errors, R->rep.warnings);
        return;
    }
    FILE *f = R->o->f;
    tprintf(f, "\n%" PRIu64 " partition%s: %" PRIu64 " open transaction%s (%" PRIu64 " hanging), %" PRIu64
               " committed, %" PRIu64 " aborted",
            t->partitions, t->partitions == 1 ? "" : "s", t->open_transactions,
            t->open_transactions == 1 ? "" : "s", t->hanging_transactions, t->committed_transactions,
            t->aborted_transactions);
    if (R->rep.errors || R->rep.warnings)
        tprintf(f, "; %" PRIu64 " error%s, %" PRIu64 " warning%s", R->rep.errors, R->rep.errors == 1 ? "" : "s",
                R->rep.warnings, R->rep.warnings == 1 ? "" : "s");
    fputc('\n', f);
    if (t->hanging_transactions || t->markers_missing)
        tprintf(f, "read_committed consumers of the partitions above stop at their last stable offset: see\n"
                   "\"read_committed consumers are stuck\" in the operator's guide (docs/guide.md)\n");
}

/* ---- options ---------------------------------------------------------------------- */

static void txns_usage(FILE *f)
{
    tprintf(f, "usage: kfsck txns [--hanging-ms MS] [--max-batch-bytes N] [--json] PATH...\n\n"
               "Open, hanging and aborted transactions of every data partition under the\n"
               "PATHs (data dirs, partition dirs, segments; copies of a partition are read\n"
               "as one): per partition the transactions with no COMMIT/ABORT marker yet, the\n"
               "last stable offset where read_committed consumers stop, COMMIT and ABORT\n"
               "counts, and the .txnindex files checked against the ABORT markers. When\n"
               "__transaction_state partitions are among the inputs, each open transaction\n"
               "also gets the coordinator's transactional id and state.\n"
               "  --hanging-ms MS      an open transaction hangs when no batch of its producer\n"
               "                       follows for more than MS of the partition's time line\n"
               "                       (default 900000, 15 minutes; 30s, 10m, 1h also read)\n"
               "  --max-batch-bytes N  cap on one batch's decompressed size (default 128M)\n"
               "  --json               JSON lines: \"open_transaction\", \"partition\", \"problem\"\n"
               "exit: 0 nothing wrong; 1 a transaction hangs, a marker or .txnindex entry is\n"
               "missing, or damage was skipped; 2 usage; 3 a path cannot be read or the output\n"
               "cannot be written.\n");
}

/* MS as a number of milliseconds (0 allowed) or a duration such as 15m. */
static int parse_hanging(const char *s, void *to)
{
    int64_t *ms = to;
    if (!s || !*s)
        return -1;
    const char *q = s;
    while (isdigit((unsigned char)*q))
        q++;
    if (q != s && !*q)
        return parse_number(s, 0, ms);
    return kf_parse_duration_ms(s, ms) == KF_OK ? 0 : -1;
}

int cmd_txns(int argc, char **argv)
{
    txns_run R;
    memset(&R, 0, sizeof R);
    kf_txns_run_opts to;
    kf_txns_run_opts_init(&to);
    to.has_hanging_ms = true;
    to.hanging_ms = KF_TXN_MAX_TIMEOUT_MS_DEFAULT;
    uint64_t max_batch = KF_DEFAULT_MAX_BATCH_BYTES;
    const opt_spec specs[] = {
        {.name = "--hanging-ms", .kind = OPT_PARSE, .to = &to.hanging_ms, .parse = parse_hanging,
         .refusal = "--hanging-ms needs milliseconds (or 30s, 10m, 1h), not"},
        {.name = "--json", .kind = OPT_FLAG, .to = &R.json},
        {.name = "--max-batch-bytes", .kind = OPT_SIZE, .to = &max_batch},
        {0},
    };
    int st = opt_parse("txns", argc, argv, specs, txns_usage, "no PATH given");
    if (st >= 0)
        return st;

    out o;
    out_init(&o, stdout, R.json);
    R.o = &o;
    R.rep.o = &o;
    kf_inputs in;
    if (cli_mixed_clusters(argv + optind, argc - optind))
        return EXIT_FAIL;
    int in_status = inputs_collect_warn_none(argv + optind, argc - optind, &in);
    if (in.n && !kf_txns_data_partitions(&in))
        tprintf(stderr, "kfsck: no data partition among the inputs (only %s or __cluster_metadata)\n",
                KF_TXN_STATE_TOPIC);

    part_reader_opts(&to.read, max_batch, &R.rep);
    to.problem_fn = report_problem;
    to.problem_ctx = &R.rep;
    to.coordinator_fn = print_coordinator;
    to.partition_fn = print_partition;
    to.ctx = &R;
    kf_txns_totals t;
    if (kf_txns_run(&in, &to, &t) != KF_OK)
        cli_oom();
    print_summary(&R, &t);
    kf_inputs_free(&in);
    if (in_status == EXIT_FAIL || t.unreadable)
        return EXIT_FAIL;
    if (t.hanging_transactions || t.markers_missing || t.incomplete_partitions || R.rep.errors)
        return EXIT_DAMAGE;
    return EXIT_CLEAN;
}
