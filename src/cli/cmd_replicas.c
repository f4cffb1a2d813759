/* cmd_replicas.c: `kfsck replicas`: options, and the printing of what the
 * library's replicas job (include/kfsck/replicas.h) finds: per
 * topic-partition its replicas, each candidate leader with what every other
 * replica would lose, the best candidate and how to elect it; as JSON the
 * contract's "replica", "election" and "partition" lines. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/walk.h"

typedef struct replicas_print {
    out *o;
    report rep;
} replicas_print;

/* "broker 3", or the data dir of a broker with no id. */
static void broker_name(const kf_replica *r, char *buf, size_t n)
{
    if (r->has_broker)
        snprintf(buf, n, "broker %" PRId32, r->broker);
    else
        snprintf(buf, n, "%s", r->datadir);
}

/* ---- text ------------------------------------------------------------------------- */

static void text_epochs(out *o, const kf_replica *r)
{
    if (!r->n_leader_epochs) {
        out_text(o, "  none");
        return;
    }
    out_text(o, " ");
    for (size_t k = 0; k < r->n_leader_epochs; k++)
        out_text(o, " %" PRId32 "@%" PRId64, r->leader_epochs[k].epoch, r->leader_epochs[k].start_offset);
    if (r->epochs_from_batches)
        out_text(o, " (from the batches: no leader-epoch-checkpoint)");
}

static void text_list(out *o, const int32_t *v, size_t n)
{
    out_text(o, "[");
    for (size_t i = 0; i < n; i++)
        out_text(o, "%s%" PRId32, i ? "," : "", v[i]);
    out_text(o, "]");
}

static void text_opt(out *o, bool has, int64_t v)
{
    if (has)
        out_text(o, " %12" PRId64, v);
    else
        out_text(o, " %12s", "-");
}

/* What an election loses that acks=all producers were told was written. */
static void text_acknowledged(out *o, const kf_replica_partition *p, const kf_replica_election *e)
{
    if (!p->has_high_watermark) {
        out_text(o, " log end %" PRId64 " (no replica has a high watermark: what was acknowledged is unknown);",
                 e->leader_log_end);
        return;
    }
    if (!e->acknowledged_missing) {
        out_text(o, " holds every acknowledged offset (log end %" PRId64 ");", e->leader_log_end);
        return;
    }
    out_text(o, " LOSES %" PRId64 " ACKNOWLEDGED offset%s (%" PRId64 "..%" PRId64 ": its log ends at %" PRId64 ")",
             e->acknowledged_missing, e->acknowledged_missing == 1 ? "" : "s", e->leader_log_end,
             e->leader_log_end + e->acknowledged_missing - 1, e->leader_log_end);
    if (e->has_salvage && e->acknowledged_missing_after_merge < e->acknowledged_missing)
        out_text(o, ", %" PRId64 " of them still in the copies' files",
                 e->acknowledged_missing - e->acknowledged_missing_after_merge);
    out_text(o, ";");
}

static void text_election(out *o, const kf_replica_partition *p, size_t i)
{
    const kf_replica_election *e = &p->elections[i];
    char name[300];
    broker_name(&p->replicas[e->candidate], name, sizeof name);
    out_text(o, "  %s elect %s:", p->has_best && p->best == i ? "*" : " ", name);
    text_acknowledged(o, p, e);
    if (!e->nfollowers)
        out_text(o, " no other replica to follow it");
    for (size_t k = 0; k < e->nfollowers; k++) {
        const kf_replica_follower *f = &e->followers[k];
        broker_name(&p->replicas[f->replica], name, sizeof name);
        if (f->offsets_lost == 0)
            out_text(o, "%s %s keeps its log (to %" PRId64 ")", k ? ";" : "", name, f->truncate_to);
        else if (f->acknowledged_lost)
            out_text(o, "%s %s truncates to %" PRId64 " (loses %" PRId64 " offset%s, %" PRId64 " ACKNOWLEDGED)",
                     k ? ";" : "", name, f->truncate_to, f->offsets_lost, f->offsets_lost == 1 ? "" : "s",
                     f->acknowledged_lost);
        else
            out_text(o, "%s %s truncates to %" PRId64 " (loses %" PRId64 " offset%s, %" PRId64 " acknowledged)",
                     k ? ";" : "", name, f->truncate_to, f->offsets_lost, f->offsets_lost == 1 ? "" : "s",
                     f->acknowledged_lost);
    }
    out_text(o, "\n");
}

static bool in_isr(const kf_replica_partition *p, const kf_replica *r)
{
    for (size_t i = 0; r->has_broker && i < p->nisr; i++)
        if (p->isr[i] == r->broker)
            return true;
    return false;
}

/* The copies' files still hold some of what the best candidate misses:
 * the merge that brings it back, and what the election then loses. */
static void text_salvage(out *o, const kf_replica_partition *p, const kf_replica_election *e, const char *name)
{
    for (size_t k = 0; k < e->nsalvage; k++) {
        const kf_replica_salvage *sv = &e->salvage[k];
        const kf_replica *r = &p->replicas[sv->replica];
        char who[300];
        broker_name(r, who, sizeof who);
        out_text(o, "  %s's files still hold offsets %" PRId64 "..%" PRId64 " intact (%s)\n", who, sv->from_offset,
                 sv->to_offset - 1,
                 r->has_log_end && r->log_end_offset >= sv->to_offset ? "in its log"
                                                                       : "past the damage its own recovery cuts");
    }
    out_text(o, "  to bring them back, with the partition's brokers stopped, merge the copies:\n    kfsck merge -o OUTDIR");
    for (size_t i = 0; i < p->nreplicas; i++)
        if (!p->replicas[i].from_scan_file && p->replicas[i].dir)
            out_shell(o, " ", p->replicas[i].dir);
    out_text(o, "\n  and put OUTDIR/%s in place of %s's copy before electing it: ", kf_path_base(p->replicas[e->candidate].dir),
             name);
    if (e->acknowledged_missing_after_merge > 0)
        out_text(o, "it then still LOSES %" PRId64 " ACKNOWLEDGED offset%s\n", e->acknowledged_missing_after_merge,
                 e->acknowledged_missing_after_merge == 1 ? "" : "s");
    else
        out_text(o, "it then holds every acknowledged offset\n");
}

/* What to do: the best candidate, and how to make it lead. */
static void text_advice(out *o, const kf_replica_partition *p)
{
    if (!p->has_best) {
        out_text(o, "  no replica could be read to its end: nothing to elect\n");
        return;
    }
    const kf_replica_election *e = &p->elections[p->best];
    const kf_replica *b = &p->replicas[e->candidate];
    char name[300];
    broker_name(b, name, sizeof name);
    if (!p->has_high_watermark)
        out_text(o, "  best: %s (followers truncate %" PRId64 " offsets, %" PRId64 " of them acknowledged; no high "
                    "watermark says what else was)",
                 name, e->offsets_lost, e->acknowledged_lost);
    else if (e->acknowledged_missing || e->acknowledged_lost)
        out_text(o, "  best: %s, and it LOSES ACKNOWLEDGED offsets: %" PRId64 " missing from its log, followers "
                    "truncate %" PRId64 " offsets (%" PRId64 " acknowledged)",
                 name, e->acknowledged_missing, e->offsets_lost, e->acknowledged_lost);
    else
        out_text(o, "  best: %s (holds every acknowledged offset; followers truncate %" PRId64 " offsets, none "
                    "acknowledged)",
                 name, e->offsets_lost);
    if (p->has_unclean)
        out_text(o, p->unclean ? ", in neither the ISR nor the ELR: an unclean election" : ", in the ISR or ELR");
    out_text(o, "\n");
    if (p->diverged)
        out_text(o, "  the replicas diverged (their epoch histories or batches differ below a common end)\n");
    if (p->has_unclean && !p->unclean)
        out_text(o, "  Kafka elects it cleanly once it is up (it is in the %s)\n",
                 in_isr(p, b) ? "ISR" : "ELR");
    else {
        out_shell(o, "  to elect it: kafka-leader-election.sh --bootstrap-server HOST:PORT --election-type unclean "
                     "--topic ", p->topic);
        out_text(o,
                 " --partition %" PRId32 "\n"
                 "    (that elects the first live replica of the assignment: put %s first with "
                 "kafka-reassign-partitions.sh, or keep the other replicas' brokers stopped until it leads)\n",
                 p->partition, name);
    }
    if (e->nsalvage)
        text_salvage(o, p, e, name);
    else if (e->acknowledged_missing > 0 || e->acknowledged_lost > 0 || p->diverged)
        out_text(o,
                 "  no candidate keeps everything: `kfsck merge -o OUTDIR` of the copies' partition dirs rebuilds "
                 "one log from all of them to restore on the chosen broker%s\n",
                 e->has_salvage ? "" : " (scan files cannot tell what their copies' files still hold)");
}

static void text_partition(out *o, const kf_replica_partition *p)
{
    out_text(o, "%s-%" PRId32 ":", p->topic, p->partition);
    if (p->has_high_watermark)
        out_text(o, " high watermark %" PRId64, p->high_watermark);
    if (p->has_metadata) {
        out_text(o, "; KRaft: leader ");
        if (p->leader >= 0)
            out_text(o, "%" PRId32, p->leader);
        else
            out_text(o, "none");
        out_text(o, ", epoch %" PRId32 ", ISR ", p->leader_epoch);
        text_list(o, p->isr, p->nisr);
        out_text(o, ", ELR ");
        text_list(o, p->elr, p->nelr);
    }
    out_text(o, "\n    %-28s %12s %12s %12s  %s\n", "REPLICA", "LOG-START", "LOG-END", "HW", "EPOCHS (epoch@start)");
    for (size_t i = 0; i < p->nreplicas; i++) {
        const kf_replica *r = &p->replicas[i];
        char name[300];
        broker_name(r, name, sizeof name);
        out_text(o, "    %-28s", name);
        text_opt(o, r->has_log_start, r->log_start_offset);
        text_opt(o, r->has_log_end, r->log_end_offset);
        text_opt(o, r->has_high_watermark, r->high_watermark);
        text_epochs(o, r);
        if (r->damaged)
            out_text(o, "  damaged (%" PRIu64 " error%s)", r->errors, r->errors == 1 ? "" : "s");
        if (!r->has_log_end)
            out_text(o, "  could not be read to its end");
        out_text(o, "\n");
    }
    for (size_t i = 0; i < p->nelections; i++)
        text_election(o, p, i);
    text_advice(o, p);
    out_text(o, "\n");
}

static void print_partition(void *ctx, const kf_replica_partition *p)
{
    replicas_print *rp = ctx;
    if (rp->o->json)
        kf_replicas_partition_json(&rp->o->w, p);
    else
        text_partition(rp->o, p);
}

static void print_problem(void *ctx, const kf_problem *p)
{
    report_problem(&((replicas_print *)ctx)->rep, p);
}

/* ---- command ------------------------------------------------------------------------ */

static void replicas_usage(FILE *f)
{
    tprintf(f, "usage: kfsck replicas [--json] [--max-batch-bytes N] PATH...\n\n"
               "PATH: a broker's data dir (one entry of log.dirs), or a file of the `kfsck scan --json`\n"
               "output of a broker (then only its lines are read), or KRaft's __cluster_metadata-0 (or\n"
               "a data dir holding it) for the ISR and ELR. Data dirs are grouped into brokers by\n"
               "meta.properties (node.id, else broker.id). For every topic-partition: each replica's log\n"
               "start, log end after recovery, high watermark and leader epochs; for each replica as the\n"
               "leader, where every other replica truncates by Kafka's leader-epoch reconciliation and\n"
               "how many offsets (acknowledged ones too) it loses; the acknowledged offsets (below the\n"
               "high watermark) the elected log does not hold, and what the copies' files still hold of\n"
               "them (the `kfsck merge` that brings them back); the best candidate and how to elect it.\n"
               "  --max-batch-bytes N  cap on one batch's decompressed size (default 128M)\n"
               "  --json               newline-delimited JSON: replica, election, partition lines\n"
               "exit: 0 every partition has a candidate that misses and truncates nothing acknowledged,\n"
               "and no copies diverged; 1 otherwise (or a bad scan line); 2 usage error; 3 a path cannot\n"
               "be used (unreadable, or of another cluster than the others).\n");
}

int cmd_replicas(int argc, char **argv)
{
    bool json;
    uint64_t max_batch;
    int st = opt_json_and_batch("replicas", argc, argv, replicas_usage, &json, &max_batch);
    if (st >= 0)
        return st;

    out o;
    out_init(&o, stdout, json);
    replicas_print rp = {&o, {&o, NULL, 0, 0}};
    kf_replicas_opts ro;
    kf_replicas_opts_init(&ro);
    ro.max_batch_bytes = (size_t)max_batch;
    ro.partition_fn = print_partition;
    ro.problem_fn = print_problem;
    ro.ctx = &rp;
    ro.error_fn = print_path_error;
    kf_replicas_totals tot;
    if (cli_mixed_clusters(argv + optind, argc - optind))
        return EXIT_FAIL;
    int rc = kf_replicas_run(argv + optind, (size_t)(argc - optind), &ro, &tot);
    if (rc == KF_ERR_NOMEM)
        cli_oom();
    if (tot.partition_path)
        return EXIT_USAGE;
    if (json) {
        kf_replicas_summary_json(&o.w, &tot);
    } else {
        out_text(&o, "%" PRIu64 " partition%s, %" PRIu64 " with no candidate that keeps every acknowledged offset or "
                     "with diverged copies\n",
                 tot.partitions, tot.partitions == 1 ? "" : "s", tot.at_risk);
    }
    if (rc != KF_OK || tot.unusable)
        return EXIT_FAIL;
    return tot.at_risk || tot.bad_lines ? EXIT_DAMAGE : EXIT_CLEAN;
}
