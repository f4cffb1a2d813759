/* cmd_offsets.c: `kfsck offsets`: the committed consumer offsets, rebuilt
 * by replaying every __consumer_offsets partition under the PATHs the way
 * the group coordinator does (src/jobs/offsets/replay.c), over the union of all copies
 * given; as a table, JSON lines, CSV, or the CSV that
 * `kafka-consumer-groups.sh --reset-offsets --from-file` reads (with a group
 * column unless exactly one --group). --history prints the replay's change
 * stream; --as-of the table folded from that same stream (a prefix of it).
 * Each row also shows what it means to the consumer resuming from it (the
 * library's offsets view: log start and end, lag, out of range, may be
 * stale, expiry), with offset_out_of_range / offset_expired problems.
 * With --connect, Kafka Connect source-connector offsets instead. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/kraft_names.h"
#include "cli/partitions.h"
#include "cli/text_width.h"
#include "cli/walk.h"
#include "kfsck/groups.h"
#include "kfsck/offsets_view.h"
#include "kfsck/replay.h"

enum { FMT_TABLE, FMT_JSON, FMT_CSV, FMT_RESET_CSV };

typedef struct offsets_opts {
    const char **groups;
    size_t ngroups;
    const char **topics;
    size_t ntopics;
    bool history, connect, has_as_of, has_now;
    int64_t as_of, now;
    int64_t retention_minutes;
    const char *connect_topic;
    int32_t offsets_partitions;
    int format;
    uint64_t max_batch_bytes;
} offsets_opts;

typedef struct offsets_run {
    const offsets_opts *opts;
    out *o;          /* stdout (JSON or text) */
    out *perr;       /* where problems go: stdout in JSON, stderr otherwise */
    report rep;
    const kf_inputs *in;
    kf_replay *replay;
    kf_offsets_view *view; /* the consumer's view of each row */
    int gw, tw;      /* table column widths */
    int64_t at_offset; /* history: where the change took effect */
    int64_t change_time; /* history: the time --as-of compares */
    kf_metadata *meta; /* the KRaft metadata log among the inputs: topic ids by name */
} offsets_run;

static bool wanted(const offsets_opts *op, const char *group, const char *topic)
{
    bool g = op->ngroups == 0, t = op->ntopics == 0;
    for (size_t i = 0; i < op->ngroups && !g; i++)
        g = !strcmp(op->groups[i], group);
    for (size_t i = 0; i < op->ntopics && !t; i++)
        t = !strcmp(op->topics[i], topic);
    return g && t;
}

static void csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* The consumer's view of a row (vw), as JSON fields after transactional. */
static void json_bounds(out *o, const kf_offset_view *vw)
{
    if (!vw->has_bounds)
        return;
    out_int(o, "log_start_offset", vw->log_start_offset);
    out_int(o, "log_end_offset", vw->log_end_offset);
    out_opt_int(o, "lag", vw->has_lag, vw->lag);
    out_str(o, "out_of_range", kf_out_of_range_name(vw->out_of_range));
}

/* What only a row of the table has: staleness and expiry. */
static void json_table_fields(out *o, const kf_offset_view *vw)
{
    out_bool(o, "may_be_stale", vw->may_be_stale);
    out_opt_int(o, "expires_at", vw->has_expires_at, vw->expires_at);
    out_bool(o, "expired", vw->has_expires_at && vw->expired);
}

static void print_json(offsets_run *run, const kf_offset_value *v, const kf_offset_view *vw, bool history,
                       bool deleted)
{
    out *o = run->o;
    out_begin(o, "offset");
    out_str(o, "group", v->group);
    out_str(o, "topic", v->topic);
    out_int(o, "partition", v->partition);
    if (history && deleted) {
        /* a deletion: no value; source_offset is the tombstone's */
        out_null(o, "offset");
        out_null(o, "leader_epoch");
        out_null(o, "metadata");
        out_null(o, "commit_timestamp");
        out_null(o, "expire_timestamp");
        out_int(o, "source_partition", v->source_partition);
        out_int(o, "source_offset", run->at_offset);
        out_bool(o, "transactional", false);
        out_bool(o, "deleted", true);
        out_int(o, "change_time", run->change_time);
        out_int(o, "effective_offset", run->at_offset);
        out_obj_open(o, "previous");
        out_int(o, "offset", v->offset);
        out_int(o, "commit_timestamp", v->commit_timestamp);
        out_int(o, "source_offset", v->source_offset);
        out_obj_close(o);
        out_end(o);
        return;
    }
    out_int(o, "offset", v->offset);
    out_opt_int(o, "leader_epoch", v->leader_epoch >= 0, v->leader_epoch); /* -1: none (kfsck(1), offsets) */
    out_str(o, "metadata", v->metadata);
    out_int(o, "commit_timestamp", v->commit_timestamp);
    out_opt_int(o, "expire_timestamp", v->expire_timestamp >= 0, v->expire_timestamp);
    out_int(o, "source_partition", v->source_partition);
    out_int(o, "source_offset", v->source_offset);
    out_bool(o, "transactional", v->transactional);
    json_bounds(o, vw);
    out_int(o, "value_version", v->value_version);
    if (v->has_topic_id) {
        char id[23];
        kf_uuid_to_b64(v->topic_id, id);
        out_str(o, "topic_id", id);
    } else if (run->meta) {
        /* a commit without one: the topic's id in the cluster's metadata log */
        const kf_md_topic *t = kf_metadata_topic_by_name(run->meta, v->topic);
        if (t) {
            char id[23];
            kf_uuid_to_b64(t->id, id);
            out_str(o, "topic_id", id);
        }
    }
    if (history) {
        out_bool(o, "deleted", false);
        out_int(o, "change_time", run->change_time);
        out_int(o, "effective_offset", run->at_offset);
    } else {
        json_table_fields(o, vw);
    }
    out_end(o);
}

static void print_csv(offsets_run *run, const kf_offset_value *v, const kf_offset_view *vw, bool history,
                      bool deleted)
{
    FILE *f = run->o->f;
    csv_field(f, v->group);
    fputc(',', f);
    csv_field(f, v->topic);
    fprintf(f, ",%d,%" PRId64 ",", v->partition, v->offset);
    if (v->leader_epoch >= 0)
        fprintf(f, "%d", v->leader_epoch);
    fputc(',', f);
    csv_field(f, v->metadata);
    fprintf(f, ",%" PRId64 ",", v->commit_timestamp);
    if (v->expire_timestamp >= 0)
        fprintf(f, "%" PRId64, v->expire_timestamp);
    fprintf(f, ",%d,%" PRId64 ",%s,", v->source_partition, v->source_offset, v->transactional ? "true" : "false");
    if (vw->has_bounds)
        fprintf(f, "%" PRId64, vw->log_end_offset);
    fputc(',', f);
    if (vw->has_lag)
        fprintf(f, "%" PRId64, vw->lag);
    if (history)
        fprintf(f, ",%s", deleted ? "true" : "false");
    /* the consumer's view, after the columns of before */
    fputc(',', f);
    if (vw->has_bounds)
        fprintf(f, "%" PRId64, vw->log_start_offset);
    const char *range = kf_out_of_range_name(vw->out_of_range);
    fprintf(f, ",%s,", range ? range : "");
    if (!history) {
        fputs(vw->may_be_stale ? "true" : "false", f);
        fputc(',', f);
        if (vw->has_expires_at)
            fprintf(f, "%" PRId64, vw->expires_at);
        fprintf(f, ",%s", vw->has_expires_at && vw->expired ? "true" : "false");
    } else {
        fputc(',', f);
    }
    fputc('\n', f);
}

/* The text table's columns after TOPIC (GROUP and TOPIC are as wide as
 * their longest name, in terminal columns). */
#define TABLE_COLUMNS "%9s %14s %12s %16s %14s %10s %-15s %-24s %15s %-24s %s"

static void print_table_row(offsets_run *run, const kf_offset_value *v, const kf_offset_view *vw, bool history,
                            bool deleted)
{
    FILE *f = run->o->f;
    char part[16], cur[24], ep[16] = "-", lso[24] = "-", leo[24] = "-", lag[24] = "-", when[40], ms[24];
    char expires[40] = "-";
    snprintf(part, sizeof part, "%d", v->partition);
    snprintf(cur, sizeof cur, "%" PRId64, v->offset);
    if (v->leader_epoch >= 0)
        snprintf(ep, sizeof ep, "%d", v->leader_epoch);
    if (vw->has_bounds) {
        snprintf(lso, sizeof lso, "%" PRId64, vw->log_start_offset);
        snprintf(leo, sizeof leo, "%" PRId64, vw->log_end_offset);
    }
    if (vw->has_lag)
        snprintf(lag, sizeof lag, "%" PRId64, vw->lag);
    fmt_time_utc(v->commit_timestamp, when, sizeof when);
    snprintf(ms, sizeof ms, "%" PRId64, v->commit_timestamp);
    if (!history) {
        if (vw->has_expires_at)
            fmt_time_utc(vw->expires_at, expires, sizeof expires);
        else
            snprintf(expires, sizeof expires, "never");
    }
    const char *range = vw->out_of_range == KF_BELOW_LOG_START ? "BELOW-LOG-START"
                        : vw->out_of_range == KF_ABOVE_LOG_END ? "ABOVE-LOG-END"
                                                                : "-";
    fput_padded(f, v->group, run->gw);
    fputc(' ', f);
    fput_padded(f, v->topic, run->tw);
    const char *stale = history ? "-" : vw->may_be_stale ? "yes" : "no";
    fprintf(f, " " TABLE_COLUMNS "%s%s%s\n", part, cur, ep, lso, leo, lag, range, when, ms, expires, stale,
            history && deleted ? " DELETED" : "", v->transactional ? " (txn)" : "",
            !history && vw->has_expires_at && vw->expired ? " EXPIRED" : "");
}

/* The problems a row of the table is (out of range, expired): their own
 * fields, after the row's key. */
typedef struct row_ctx {
    const kf_offset_value *v;
    const kf_offset_view *vw;
} row_ctx;

static void row_key_fields(out *o, const kf_offset_value *v)
{
    out_str(o, "group", v->group);
    out_str(o, "topic", v->topic);
    out_int(o, "partition", v->partition);
}

static void out_of_range_fields(out *o, void *ctx)
{
    const row_ctx *c = ctx;
    row_key_fields(o, c->v);
    out_int(o, "log_start_offset", c->vw->log_start_offset);
    out_int(o, "log_end_offset", c->vw->log_end_offset);
    out_int(o, "records_skipped_if_earliest", c->vw->skipped_if_earliest);
    out_int(o, "records_skipped_if_latest", c->vw->skipped_if_latest);
    out_int(o, "records_reread_if_earliest", c->vw->reread_if_earliest);
}

static void expired_fields(out *o, void *ctx)
{
    const row_ctx *c = ctx;
    row_key_fields(o, c->v);
    out_int(o, "expires_at", c->vw->expires_at);
}

/* s as one shell word: as it is when it holds only safe characters, else
 * in single quotes (a quote inside as '\''), cut to fit cap. */
static void shell_word(const char *s, char *buf, size_t cap)
{
    if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-:/=@") == strlen(s)) {
        snprintf(buf, cap, "%s", s);
        return;
    }
    size_t n = 0;
    buf[n++] = '\'';
    for (; *s && n + 6 < cap; s++) {
        if (*s == '\'') {
            memcpy(buf + n, "'\\''", 4);
            n += 4;
        } else {
            buf[n++] = *s;
        }
    }
    buf[n++] = '\'';
    buf[n] = 0;
}

/* The command that moves the group past the damage (kafka-consumer-groups.sh
 * --reset-offsets --to-offset, run with the group's consumers stopped). */
static void reset_command(const kf_offset_value *v, int64_t to, char *buf, size_t cap)
{
    char g[600], tp[600], t[560];
    shell_word(v->group, g, sizeof g);
    snprintf(t, sizeof t, "%s:%d", v->topic, v->partition);
    shell_word(t, tp, sizeof tp);
    snprintf(buf, cap,
             "kafka-consumer-groups.sh --bootstrap-server BROKER:9092 --group %s --topic %s --reset-offsets "
             "--to-offset %" PRId64 " --execute",
             g, tp, to);
}

static void damage_fields(out *o, void *ctx)
{
    const row_ctx *c = ctx;
    row_key_fields(o, c->v);
    bool next = c->vw->has_next_offset;
    out_opt_int(o, "damage_last_offset", next, c->vw->next_offset - 1);
    out_opt_int(o, "next_offset", next, c->vw->next_offset);
    out_opt_int(o, "offsets_skipped", next, c->vw->next_offset - c->v->offset);
    char cmd[1400];
    if (next)
        reset_command(c->v, c->vw->next_offset, cmd, sizeof cmd);
    out_str(o, "reset_command", next ? cmd : NULL);
}

/* The group's next read lies in damage of the committed partition. */
static void damage_problem(offsets_run *run, const kf_offset_value *v, const kf_offset_view *vw, kf_problem *p)
{
    row_ctx ctx = {v, vw};
    p->code = KF_P_COMMITTED_OFFSET_DAMAGED;
    int n = snprintf(p->message, sizeof p->message,
                     "group %.60s: %.60s-%d committed %" PRId64
                     " lies in damage of the partition's log (no copy given holds it intact): the consumer fails "
                     "to read there",
                     v->group, v->topic, v->partition, v->offset);
    if (vw->has_next_offset && n > 0 && (size_t)n < sizeof p->message)
        snprintf(p->message + n, sizeof p->message - (size_t)n,
                 "; the damage ends at %" PRId64 ": --reset-offsets --to-offset %" PRId64 " skips %" PRId64
                 " offsets",
                 vw->next_offset - 1, vw->next_offset, vw->next_offset - v->offset);
    report_problem_with(&run->rep, p, damage_fields, &ctx);
    if (vw->has_next_offset && !run->perr->json) { /* in text, the command on its own line */
        char cmd[1400];
        reset_command(v, vw->next_offset, cmd, sizeof cmd);
        fprintf(run->perr->f, "    %s\n", cmd);
    }
}

static void row_problems(offsets_run *run, const kf_offset_value *v, const kf_offset_view *vw)
{
    row_ctx ctx = {v, vw};
    kf_problem p;
    memset(&p, 0, sizeof p);
    p.severity = KF_SEV_WARNING;
    p.has_offset = true;
    p.offset = v->offset;
    if (vw->out_of_range != KF_IN_RANGE) {
        p.code = KF_P_OFFSET_OUT_OF_RANGE;
        if (vw->out_of_range == KF_BELOW_LOG_START)
            snprintf(p.message, sizeof p.message,
                     "group %.60s: %.60s-%d committed %" PRId64 ", below the log start %" PRId64
                     ": auto.offset.reset=earliest skips %" PRId64 ", latest %" PRId64 " records",
                     v->group, v->topic, v->partition, v->offset, vw->log_start_offset, vw->skipped_if_earliest,
                     vw->skipped_if_latest);
        else
            snprintf(p.message, sizeof p.message,
                     "group %.60s: %.60s-%d committed %" PRId64 ", past the log end %" PRId64
                     ": auto.offset.reset=earliest reads %" PRId64 " records again",
                     v->group, v->topic, v->partition, v->offset, vw->log_end_offset, vw->reread_if_earliest);
        report_problem_with(&run->rep, &p, out_of_range_fields, &ctx);
    }
    if (vw->has_expires_at && vw->expired) {
        char when[40];
        fmt_time_utc(vw->expires_at, when, sizeof when);
        p.code = KF_P_OFFSET_EXPIRED;
        snprintf(p.message, sizeof p.message,
                 "group %.50s: %.50s-%d committed %" PRId64 " expired at %.30s (%" PRId64
                 "): the coordinator deletes it, a restart follows auto.offset.reset",
                 v->group, v->topic, v->partition, v->offset, when, vw->expires_at);
        report_problem_with(&run->rep, &p, expired_fields, &ctx);
    }
    if (vw->in_damage)
        damage_problem(run, v, vw, &p);
}

/* A reset file restores what it holds as it is: say which lines would put a
 * consumer out of range or at no position. */
static void reset_csv_note(const kf_offset_value *v, const kf_offset_view *vw)
{
    if (v->offset < 0)
        fprintf(stderr,
                "kfsck: reset-csv: group '%s' %s-%d: committed %" PRId64
                " (no position): restored as it is, the consumer starts by auto.offset.reset\n",
                v->group, v->topic, v->partition, v->offset);
    else if (vw->out_of_range == KF_BELOW_LOG_START)
        fprintf(stderr,
                "kfsck: reset-csv: group '%s' %s-%d: offset %" PRId64 " is below the log start %" PRId64
                ": restored as it is, the consumer gets OFFSET_OUT_OF_RANGE\n",
                v->group, v->topic, v->partition, v->offset, vw->log_start_offset);
    else if (vw->out_of_range == KF_ABOVE_LOG_END)
        fprintf(stderr,
                "kfsck: reset-csv: group '%s' %s-%d: offset %" PRId64 " is past the log end %" PRId64
                ": restored as it is, the consumer gets OFFSET_OUT_OF_RANGE\n",
                v->group, v->topic, v->partition, v->offset, vw->log_end_offset);
    if (vw->in_damage)
        fprintf(stderr,
                "kfsck: reset-csv: group '%s' %s-%d: offset %" PRId64 " lies in damage of the partition's log: "
                "restored as it is, the consumer fails there%s\n",
                v->group, v->topic, v->partition, v->offset,
                vw->has_next_offset ? " (committed_offset_damaged gives the offset that skips it)" : "");
    if (vw->may_be_stale)
        fprintf(stderr,
                "kfsck: reset-csv: group '%s' %s-%d: offset %" PRId64 " may be stale: __consumer_offsets-%d lost "
                "commits written after it (offsets_lost), the group may have committed a later offset there; "
                "restored as it is\n",
                v->group, v->topic, v->partition, v->offset, v->source_partition);
}

static void print_row(offsets_run *run, const kf_offset_value *v, bool history, bool deleted)
{
    kf_offset_view vw;
    if (kf_offsets_view_row(run->view, v, &vw) != KF_OK)
        cli_oom();
    switch (run->opts->format) {
    case FMT_JSON: print_json(run, v, &vw, history, deleted); break;
    case FMT_CSV: print_csv(run, v, &vw, history, deleted); break;
    case FMT_RESET_CSV:
        /* kafka-consumer-groups.sh takes topic,partition,offset with exactly
         * one --group, group,topic,partition,offset otherwise */
        if (run->opts->ngroups != 1) {
            csv_field(run->o->f, v->group);
            fputc(',', run->o->f);
        }
        csv_field(run->o->f, v->topic);
        fprintf(run->o->f, ",%d,%" PRId64 "\n", v->partition, v->offset);
        reset_csv_note(v, &vw);
        return;
    default: print_table_row(run, v, &vw, history, deleted);
    }
    if (!history)
        row_problems(run, v, &vw);
}

static void print_header(offsets_run *run)
{
    if (run->opts->format == FMT_TABLE) {
        FILE *f = run->o->f;
        fput_padded(f, "GROUP", run->gw);
        fputc(' ', f);
        fput_padded(f, "TOPIC", run->tw);
        fprintf(f, " " TABLE_COLUMNS "\n", "PARTITION", "CURRENT-OFFSET", "LEADER-EPOCH", "LOG-START-OFFSET",
                "LOG-END-OFFSET", "LAG", "OUT-OF-RANGE", "COMMIT-TIME", "COMMIT-TIME-MS", "EXPIRES-AT",
                "MAY-BE-STALE");
    } else if (run->opts->format == FMT_CSV) {
        fprintf(run->o->f,
                "group,topic,partition,offset,leader_epoch,metadata,commit_timestamp,expire_timestamp,"
                "source_partition,source_offset,transactional,log_end_offset,lag%s,log_start_offset,out_of_range,"
                "may_be_stale,expires_at,expired\n",
                run->opts->history ? ",deleted" : "");
    }
}

static void on_change(void *ctx, const kf_offset_value *v, bool deleted, int64_t time, int64_t at)
{
    offsets_run *run = ctx;
    if (!wanted(run->opts, v->group, v->topic))
        return;
    run->at_offset = at;
    run->change_time = time;
    print_row(run, v, true, deleted);
}

static void offsets_usage(FILE *f)
{
    fprintf(f,
            "usage: kfsck offsets [--group G]... [--topic T]... [--history] [--as-of MS]\n"
            "                     [--now MS] [--offsets-retention-minutes N]\n"
            "                     [--connect [--connect-topic T]] [--offsets-partitions N]\n"
            "                     [--format table|json|csv|reset-csv] [--max-batch-bytes N]\n"
            "                     [--json] PATH...\n\n"
            "Rebuilds committed consumer offsets by replaying every __consumer_offsets partition\n"
            "under the PATHs (data dirs, partition dirs, segments; several copies may be given)\n"
            "as the group coordinator does.\n"
            "  --group G / --topic T   only these (repeatable)\n"
            "  --history               every change in the order it took effect\n"
            "  --as-of MS              the table of every change whose time is <= MS (a\n"
            "                          commit's commit_timestamp, a deletion's batch time;\n"
            "                          epoch ms or ISO 8601: 2024-02-12T01:11:26Z); with\n"
            "                          --history, those changes\n"            "  --now MS                when expiry is judged (default: the newest batch time);\n"
            "                          each row's expires_at/expired by the coordinator's rule\n"
            "  --offsets-retention-minutes N  offsets.retention.minutes (default 10080)\n"
            "  --format table|json|csv the columns of kafka-consumer-groups.sh --describe\n"
            "                          (default), JSON lines (as --json), or CSV with a header\n"
            "  --format reset-csv      the file kafka-consumer-groups.sh --reset-offsets\n"
            "                          --from-file reads: topic,partition,offset with exactly\n"
            "                          one --group, else group,topic,partition,offset\n"
            "  --connect               Kafka Connect source offsets (topic --connect-topic,\n"
            "                          default connect-offsets) instead\n"
            "  --offsets-partitions N  offsets.topic.num.partitions, to name a group's partition (50)\n"
            "  --max-batch-bytes N     cap on one batch's decompressed size (default 128M)\n"
            "  --json                  newline-delimited JSON, problems included\n"
            "exit: 0 nothing wrong; 1 damaged batches or undecodable records were skipped, so\n"
            "the table may be incomplete (or the coordinator would fail to load a partition);\n"
            "2 usage error (also --json with another --format, reset-csv with --history or\n"
            "--connect, --connect with --group, --topic, --history, --as-of, --now or\n"
            "--offsets-retention-minutes); 3 a path cannot be read or the output cannot be\n"
            "written.\n");
}

static int parse_i64(const char *s, int64_t *v)
{
    char *end;
    long long x = strtoll(s, &end, 10);
    if (!*s || *end)
        return -1;
    *v = x;
    return 0;
}

static int cmp_name(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* --group / --topic values that match nothing among the groups and the
 * committed topics: said on stderr with the closest names. */
static void note_unmatched_names(const offsets_opts *op, kf_replay *r, const kf_groups *model)
{
    if (!op->ngroups && !op->ntopics)
        return;
    const kf_group *groups;
    size_t ng = kf_groups_list(model, &groups);
    const char **names = must(malloc((ng ? ng : 1) * sizeof *names));
    for (size_t i = 0; i < ng; i++)
        names[i] = groups[i].id;
    note_unmatched("group", op->groups, op->ngroups, names, ng);
    free(names);
    const kf_offset_value **rows;
    size_t n = kf_replay_offsets(r, &rows), nt = 0;
    const char **topics = must(malloc((n ? n : 1) * sizeof *topics));
    for (size_t i = 0; i < n; i++)
        topics[i] = rows[i]->topic;
    qsort(topics, n, sizeof *topics, cmp_name);
    for (size_t i = 0; i < n; i++) /* each topic once */
        if (!nt || strcmp(topics[nt - 1], topics[i]))
            topics[nt++] = topics[i];
    note_unmatched("topic", op->topics, op->ntopics, topics, nt);
    free(topics);
}

/* A replay of the offsets topic: with as_of, its table is the as-of table;
 * with history_run, every change goes to on_change. Out of memory exits. */
static kf_replay *new_replay(const offsets_opts *op, bool as_of, offsets_run *history_run, report *rep)
{
    kf_replay_opts ro;
    kf_replay_opts_init(&ro);
    ro.max_batch_bytes = (size_t)op->max_batch_bytes;
    ro.has_as_of = as_of;
    ro.as_of = op->as_of;
    ro.problem_fn = report_problem;
    ro.problem_ctx = rep;
    if (history_run) {
        ro.change_fn = on_change;
        ro.change_ctx = history_run;
    }
    kf_replay *r;
    if (kf_replay_new(&r, &ro) != KF_OK)
        cli_oom();
    return r;
}

int cmd_offsets(int argc, char **argv)
{
    offsets_opts op = {0};
    op.offsets_partitions = 50;
    op.connect_topic = "connect-offsets";
    op.max_batch_bytes = KF_DEFAULT_MAX_BATCH_BYTES;
    const char *group_buf[argc], *topic_buf[argc]; /* at most one per argument */
    op.groups = group_buf;
    op.topics = topic_buf;
    static const struct option longopts[] = {
        {"group", required_argument, 0, 'g'},   {"topic", required_argument, 0, 't'},
        {"history", no_argument, 0, 'H'},       {"as-of", required_argument, 0, 'a'},
        {"connect", no_argument, 0, 'c'},       {"connect-topic", required_argument, 0, 'C'},
        {"offsets-partitions", required_argument, 0, 'n'}, {"format", required_argument, 0, 'f'},
        {"json", no_argument, 0, 'j'},          {"max-batch-bytes", required_argument, 0, 'B'},
        {"now", required_argument, 0, 'N'},     {"offsets-retention-minutes", required_argument, 0, 'R'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0},
    };
    optind = 1;
    opterr = 0;
    int c, rc = EXIT_CLEAN;
    bool json_flag = false, format_set = false;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        int64_t v;
        switch (c) {
        case 'g': op.groups[op.ngroups++] = optarg; break;
        case 't': op.topics[op.ntopics++] = optarg; break;
        case 'H': op.history = true; break;
        case 'a':
            if (opt_time("offsets", "--as-of", optarg, &op.as_of, offsets_usage))
                return EXIT_USAGE;
            op.has_as_of = true;
            break;
        case 'N':
            if (opt_time("offsets", "--now", optarg, &op.now, offsets_usage))
                return EXIT_USAGE;
            op.has_now = true;
            break;
        case 'R':
            if (parse_i64(optarg, &v) || v <= 0 || v > INT64_MAX / 60000)
                return opt_usage_error("offsets", "--offsets-retention-minutes needs a positive count, not", optarg,
                                       offsets_usage);
            op.retention_minutes = v;
            break;
        case 'c': op.connect = true; break;
        case 'C': op.connect_topic = optarg; break;
        case 'n':
            if (parse_i64(optarg, &v) || v <= 0 || v > INT32_MAX)
                return opt_usage_error("offsets", "--offsets-partitions needs a positive count, not", optarg,
                                       offsets_usage);
            op.offsets_partitions = (int32_t)v;
            break;
        case 'f':
            format_set = true;
            if (!strcmp(optarg, "table"))
                op.format = FMT_TABLE;
            else if (!strcmp(optarg, "json"))
                op.format = FMT_JSON;
            else if (!strcmp(optarg, "csv"))
                op.format = FMT_CSV;
            else if (!strcmp(optarg, "reset-csv"))
                op.format = FMT_RESET_CSV;
            else
                return opt_usage_error("offsets", "--format is table, json, csv or reset-csv, not", optarg,
                                       offsets_usage);
            break;
        case 'j': json_flag = true; break;
        case 'B':
            if (opt_positive_size("offsets", "--max-batch-bytes", optarg, &op.max_batch_bytes))
                return EXIT_USAGE;
            break;
        case 'h': offsets_usage(stdout); return EXIT_CLEAN;
        default: return opt_usage_error("offsets", "unknown or incomplete option", argv[optind - 1], offsets_usage);
        }
    }
    if (json_flag) {
        if (format_set && op.format != FMT_JSON)
            return opt_usage_error("offsets", "--json contradicts --format", NULL, offsets_usage);
        op.format = FMT_JSON;
    }
    if (optind >= argc)
        return opt_usage_error("offsets", "no PATH given", NULL, offsets_usage);
    if (op.format == FMT_RESET_CSV && (op.history || op.connect))
        return opt_usage_error("offsets", "--format reset-csv cannot be combined with --history or --connect", NULL,
                               offsets_usage);
    if (op.connect && (op.history || op.has_as_of || op.ngroups || op.ntopics || op.has_now || op.retention_minutes))
        return opt_usage_error("offsets",
                               "--connect cannot be combined with --group, --topic, --history, --as-of, --now or "
                               "--offsets-retention-minutes",
                               NULL, offsets_usage);

    if (cli_mixed_clusters(argv + optind, argc - optind))
        return EXIT_FAIL;
    out o, e;
    out_init(&o, stdout, op.format == FMT_JSON);
    out_init(&e, stderr, false);
    out *perr = op.format == FMT_JSON ? &o : &e;
    kf_inputs in;
    int in_status = inputs_collect(argv + optind, argc - optind, &in);

    if (op.connect) {
        rc = connect_offsets(&in, op.connect_topic, op.max_batch_bytes, op.format == FMT_JSON, &o, perr);
        kf_inputs_free(&in);
        fflush(stdout);
        return in_status == EXIT_FAIL ? EXIT_FAIL : rc;
    }

    /* Where each named group lives (Kafka's hash rule). */
    note_group_partitions(&in, (const char *const *)op.groups, op.ngroups, op.offsets_partitions);

    offsets_run run = {.opts = &op, .o = &o, .perr = perr, .rep = {perr, NULL, 0, 0}, .in = &in, .gw = 24, .tw = 24};
    if (op.format == FMT_JSON && kf_inputs_find(&in, "__cluster_metadata", 0))
        run.meta = kraft_image_of(argv + optind, argc - optind, op.max_batch_bytes);
    run.replay = new_replay(&op, op.has_as_of, op.history ? &run : NULL, &run.rep);
    replay_report_load_errors(run.replay, &run.rep);
    kf_offsets_view_opts vo;
    kf_offsets_view_opts_init(&vo);
    vo.max_batch_bytes = (size_t)op.max_batch_bytes;
    vo.has_now = op.has_now;
    vo.now = op.now;
    vo.retention_ms = op.retention_minutes * 60000;
    if (op.history) {
        if (kf_offsets_view_new(&run.view, &in, run.replay, &vo) != KF_OK) /* bounds only: no expiry in a history */
            cli_oom();
        print_header(&run);
    }
    kf_offsets_topic_result res;
    replay_offsets_topic(&in, run.replay, (size_t)op.max_batch_bytes, perr, &res);
    if (!res.partitions)
        fprintf(stderr, "kfsck: no __consumer_offsets partition found under the given paths\n");
    kf_groups *model;
    if (kf_groups_build(&model, run.replay) != KF_OK)
        cli_oom();
    note_unmatched_names(&op, run.replay, model);

    if (!op.history) {
        vo.groups = model;
        if (kf_offsets_view_new(&run.view, &in, run.replay, &vo) != KF_OK)
            cli_oom();
        const kf_offset_value **rows;
        size_t n = kf_replay_offsets(run.replay, &rows);
        run.gw = run.tw = 15; /* as kafka-consumer-groups.sh: max(15, longest) */
        for (size_t i = 0; op.format == FMT_TABLE && i < n; i++) {
            if (!wanted(&op, rows[i]->group, rows[i]->topic))
                continue;
            int gl = text_width(rows[i]->group), tl = text_width(rows[i]->topic);
            run.gw = gl > run.gw ? gl : run.gw;
            run.tw = tl > run.tw ? tl : run.tw;
        }
        print_header(&run);
        /* one lock for the table: every field of a row is a stdio call, and
         * each call takes the stream's lock otherwise (reader threads ran) */
        flockfile(o.f);
        for (size_t i = 0; i < n; i++) {
            if (i + 8 < n) /* the rows lie all over the heap: a value ahead, then its names */
                __builtin_prefetch(rows[i + 8]);
            if (i + 4 < n) {
                __builtin_prefetch((const char *)rows[i + 4] + 64);
                __builtin_prefetch(rows[i + 4]->group);
                __builtin_prefetch(rows[i + 4]->topic);
            }
            if (wanted(&op, rows[i]->group, rows[i]->topic))
                print_row(&run, rows[i], false, false);
        }
        funlockfile(o.f);
    }
    kf_replay_stats st = kf_replay_get_stats(run.replay);
    kf_offsets_view_free(run.view);
    kf_groups_free(model);
    kf_replay_free(run.replay);
    kf_metadata_free(run.meta);
    kf_inputs_free(&in);
    fflush(stdout);
    if (in_status == EXIT_FAIL || res.unreadable)
        return EXIT_FAIL;
    return (res.uncovered || st.skipped || run.rep.errors) ? EXIT_DAMAGE : EXIT_CLEAN;
}
