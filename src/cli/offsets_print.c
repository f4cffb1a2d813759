/* offsets_print.c: `kfsck offsets`'s rows in each format (offsets_print.h). */
#include "cli/offsets_print.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/text_width.h"

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

static void print_json(offsets_printer *p, const kf_offsets_row *r) { kf_offsets_row_json(&p->o->w, r, p->history); }

static void print_csv(offsets_printer *p, const kf_offsets_row *r)
{
    const kf_offset_value *v = r->value;
    const kf_offset_view *vw = &r->view;
    bool history = p->history;
    FILE *f = p->o->f;
    csv_field(f, v->group);
    fputc(',', f);
    csv_field(f, v->topic);
    tprintf(f, ",%d,%" PRId64 ",", v->partition, v->offset);
    if (v->leader_epoch >= 0)
        tprintf(f, "%d", v->leader_epoch);
    fputc(',', f);
    csv_field(f, v->metadata);
    tprintf(f, ",%" PRId64 ",", v->commit_timestamp);
    if (v->expire_timestamp >= 0)
        tprintf(f, "%" PRId64, v->expire_timestamp);
    tprintf(f, ",%d,%" PRId64 ",%s,", v->source_partition, v->source_offset, v->transactional ? "true" : "false");
    if (vw->has_bounds)
        tprintf(f, "%" PRId64, vw->log_end_offset);
    fputc(',', f);
    if (vw->has_lag)
        tprintf(f, "%" PRId64, vw->lag);
    if (history)
        tprintf(f, ",%s", r->deleted ? "true" : "false");
    /* the consumer's view, after the columns of before */
    fputc(',', f);
    if (vw->has_bounds)
        tprintf(f, "%" PRId64, vw->log_start_offset);
    const char *range = kf_out_of_range_name(vw->out_of_range);
    tprintf(f, ",%s,", range ? range : "");
    if (!history) {
        fputs(vw->may_be_stale ? "true" : "false", f);
        fputc(',', f);
        if (vw->has_expires_at)
            tprintf(f, "%" PRId64, vw->expires_at);
        tprintf(f, ",%s", vw->has_expires_at && vw->expired ? "true" : "false");
    } else {
        fputc(',', f);
    }
    fputc('\n', f);
}

/* The text table's columns after TOPIC (GROUP and TOPIC are as wide as
 * their longest name, in terminal columns). */
#define TABLE_COLUMNS "%9s %14s %12s %16s %14s %10s %-15s %-24s %15s %-24s %s"

static void print_table_row(offsets_printer *p, const kf_offsets_row *r)
{
    const kf_offset_value *v = r->value;
    const kf_offset_view *vw = &r->view;
    bool history = p->history;
    FILE *f = p->o->f;
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
    kf_format_time(v->commit_timestamp, true, when, sizeof when);
    snprintf(ms, sizeof ms, "%" PRId64, v->commit_timestamp);
    if (!history) {
        if (vw->has_expires_at)
            kf_format_time(vw->expires_at, true, expires, sizeof expires);
        else
            snprintf(expires, sizeof expires, "never");
    }
    const char *range = vw->out_of_range == KF_BELOW_LOG_START ? "BELOW-LOG-START"
                        : vw->out_of_range == KF_ABOVE_LOG_END ? "ABOVE-LOG-END"
                                                                : "-";
    fput_padded(f, v->group, p->gw);
    fputc(' ', f);
    fput_padded(f, v->topic, p->tw);
    const char *stale = history ? "-" : vw->may_be_stale ? "yes" : "no";
    tprintf(f, " " TABLE_COLUMNS "%s%s%s\n", part, cur, ep, lso, leo, lag, range, when, ms, expires, stale,
            history && r->deleted ? " DELETED" : "", v->transactional ? " (txn)" : "",
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
    kf_jsonl_fields(&o->w, KF_JS("group", v->group), KF_JS("topic", v->topic), KF_JI("partition", v->partition));
}

static void out_of_range_fields(out *o, void *ctx)
{
    const row_ctx *c = ctx;
    row_key_fields(o, c->v);
    kf_jsonl_fields(&o->w, KF_JI("log_start_offset", c->vw->log_start_offset),
                    KF_JI("log_end_offset", c->vw->log_end_offset),
                    KF_JI("records_skipped_if_earliest", c->vw->skipped_if_earliest),
                    KF_JI("records_skipped_if_latest", c->vw->skipped_if_latest),
                    KF_JI("records_reread_if_earliest", c->vw->reread_if_earliest));
}

static void expired_fields(out *o, void *ctx)
{
    const row_ctx *c = ctx;
    row_key_fields(o, c->v);
    kf_jsonl_int(&o->w, "expires_at", c->vw->expires_at);
}

/* The command that moves the group past the damage (kafka-consumer-groups.sh
 * --reset-offsets --to-offset, run with the group's consumers stopped),
 * malloc'd, its names shell words whole (escape.h); NULL when out of memory. */
static char *reset_command(const kf_offset_value *v, int64_t to)
{
    char t[560]; /* a topic name is at most 249 bytes */
    snprintf(t, sizeof t, "%s:%d", v->topic, v->partition);
    char *g = shell_arg_dup(v->group), *tp = shell_arg_dup(t), *cmd = NULL;
    size_t cap = g && tp ? strlen(g) + strlen(tp) + 160 : 0;
    if (cap && (cmd = malloc(cap)))
        snprintf(cmd, cap,
                 "kafka-consumer-groups.sh --bootstrap-server BROKER:9092 --group %s --topic %s --reset-offsets "
                 "--to-offset %" PRId64 " --execute",
                 g, tp, to);
    free(g);
    free(tp);
    return cmd;
}

static void damage_fields(out *o, void *ctx)
{
    const row_ctx *c = ctx;
    row_key_fields(o, c->v);
    bool next = c->vw->has_next_offset;
    char *cmd = next ? reset_command(c->v, c->vw->next_offset) : NULL;
    kf_jsonl_fields(&o->w, KF_JOPT("damage_last_offset", next, c->vw->next_offset - 1),
                    KF_JOPT("next_offset", next, c->vw->next_offset),
                    KF_JOPT("offsets_skipped", next, c->vw->next_offset - c->v->offset), KF_JS("reset_command", cmd));
    free(cmd);
}

/* The group's next read lies in damage of the committed partition. */
static void damage_problem(offsets_printer *p, const kf_offset_value *v, const kf_offset_view *vw, kf_problem *q)
{
    row_ctx ctx = {v, vw};
    q->code = KF_P_COMMITTED_OFFSET_DAMAGED;
    int n = snprintf(q->message, sizeof q->message,
                     "group %.60s: %.60s-%d committed %" PRId64
                     " lies in damage of the partition's log (no copy given holds it intact): the consumer fails "
                     "to read there",
                     v->group, v->topic, v->partition, v->offset);
    if (vw->has_next_offset && n > 0 && (size_t)n < sizeof q->message)
        snprintf(q->message + n, sizeof q->message - (size_t)n,
                 "; the damage ends at %" PRId64 ": --reset-offsets --to-offset %" PRId64 " skips %" PRId64
                 " offsets",
                 vw->next_offset - 1, vw->next_offset, vw->next_offset - v->offset);
    report_problem_with(p->rep, q, damage_fields, &ctx);
    char *cmd = vw->has_next_offset && !p->rep->o->json ? reset_command(v, vw->next_offset) : NULL;
    if (cmd) { /* in text, the command on its own line; its names are shell words (escape.h) */
        out_text(p->rep->o, "    ");
        out_raw(p->rep->o, cmd);
        out_text(p->rep->o, "\n");
    }
    free(cmd);
}

static void row_problems(offsets_printer *p, const kf_offset_value *v, const kf_offset_view *vw)
{
    row_ctx ctx = {v, vw};
    kf_problem q;
    memset(&q, 0, sizeof q);
    q.severity = KF_SEV_WARNING;
    q.has_offset = true;
    q.offset = v->offset;
    if (vw->out_of_range != KF_IN_RANGE) {
        q.code = KF_P_OFFSET_OUT_OF_RANGE;
        if (vw->out_of_range == KF_BELOW_LOG_START)
            snprintf(q.message, sizeof q.message,
                     "group %.60s: %.60s-%d committed %" PRId64 ", below the log start %" PRId64
                     ": auto.offset.reset=earliest skips %" PRId64 ", latest %" PRId64 " records",
                     v->group, v->topic, v->partition, v->offset, vw->log_start_offset, vw->skipped_if_earliest,
                     vw->skipped_if_latest);
        else
            snprintf(q.message, sizeof q.message,
                     "group %.60s: %.60s-%d committed %" PRId64 ", past the log end %" PRId64
                     ": auto.offset.reset=earliest reads %" PRId64 " records again",
                     v->group, v->topic, v->partition, v->offset, vw->log_end_offset, vw->reread_if_earliest);
        report_problem_with(p->rep, &q, out_of_range_fields, &ctx);
    }
    if (vw->has_expires_at && vw->expired) {
        char when[40];
        kf_format_time(vw->expires_at, true, when, sizeof when);
        q.code = KF_P_OFFSET_EXPIRED;
        snprintf(q.message, sizeof q.message,
                 "group %.50s: %.50s-%d committed %" PRId64 " expired at %.30s (%" PRId64
                 "): the coordinator deletes it, a restart follows auto.offset.reset",
                 v->group, v->topic, v->partition, v->offset, when, vw->expires_at);
        report_problem_with(p->rep, &q, expired_fields, &ctx);
    }
    if (vw->in_damage)
        damage_problem(p, v, vw, &q);
}

/* A reset file restores what it holds as it is: say which lines would put a
 * consumer out of range, at no position, into damage, or may be stale. */
static void reset_csv_note(const kf_offset_value *v, const kf_offset_view *vw)
{
    const char *what = NULL;
    char buf[120];
    if (v->offset < 0) {
        what = "(no position): restored as it is, the consumer starts by auto.offset.reset";
    } else if (vw->out_of_range != KF_IN_RANGE) {
        bool below = vw->out_of_range == KF_BELOW_LOG_START;
        snprintf(buf, sizeof buf, "is %s %" PRId64 ": restored as it is, the consumer gets OFFSET_OUT_OF_RANGE",
                 below ? "below the log start" : "past the log end", below ? vw->log_start_offset : vw->log_end_offset);
        what = buf;
    }
    const char *head = "kfsck: reset-csv: group";
    if (what)
        tprintf(stderr, "%s '%s' %s-%d: %s %" PRId64 " %s\n", head, v->group, v->topic, v->partition,
                v->offset < 0 ? "committed" : "offset", v->offset, what);
    if (vw->in_damage)
        tprintf(stderr,
                "%s '%s' %s-%d: offset %" PRId64 " lies in damage of the partition's log: restored as it is, the "
                "consumer fails there%s\n",
                head, v->group, v->topic, v->partition, v->offset,
                vw->has_next_offset ? " (committed_offset_damaged gives the offset that skips it)" : "");
    if (vw->may_be_stale)
        tprintf(stderr,
                "%s '%s' %s-%d: offset %" PRId64 " may be stale: __consumer_offsets-%d lost commits written after "
                "it (offsets_lost), the group may have committed a later offset there; restored as it is\n",
                head, v->group, v->topic, v->partition, v->offset, v->source_partition);
}

void offsets_print_row(offsets_printer *p, const kf_offsets_row *r)
{
    const kf_offset_value *v = r->value;
    switch (p->format) {
    case FMT_JSON: print_json(p, r); break;
    case FMT_CSV: print_csv(p, r); break;
    case FMT_RESET_CSV:
        /* kafka-consumer-groups.sh takes topic,partition,offset with exactly
         * one --group, group,topic,partition,offset otherwise */
        if (p->group_column) {
            csv_field(p->o->f, v->group);
            fputc(',', p->o->f);
        }
        csv_field(p->o->f, v->topic);
        tprintf(p->o->f, ",%d,%" PRId64 "\n", v->partition, v->offset);
        reset_csv_note(v, &r->view);
        return;
    default: print_table_row(p, r);
    }
    if (!p->history)
        row_problems(p, v, &r->view);
}

void offsets_print_widths(offsets_printer *p, const kf_offsets_row *rows, size_t n)
{
    p->gw = p->tw = 15;
    for (size_t i = 0; i < n; i++) {
        int gl = text_width_shown(rows[i].value->group), tl = text_width_shown(rows[i].value->topic);
        p->gw = gl > p->gw ? gl : p->gw;
        p->tw = tl > p->tw ? tl : p->tw;
    }
}

void offsets_print_header(const offsets_printer *p)
{
    if (p->format == FMT_TABLE) {
        FILE *f = p->o->f;
        fput_padded(f, "GROUP", p->gw);
        fputc(' ', f);
        fput_padded(f, "TOPIC", p->tw);
        tprintf(f, " " TABLE_COLUMNS "\n", "PARTITION", "CURRENT-OFFSET", "LEADER-EPOCH", "LOG-START-OFFSET",
                "LOG-END-OFFSET", "LAG", "OUT-OF-RANGE", "COMMIT-TIME", "COMMIT-TIME-MS", "EXPIRES-AT",
                "MAY-BE-STALE");
    } else if (p->format == FMT_CSV) {
        tprintf(p->o->f,
                "group,topic,partition,offset,leader_epoch,metadata,commit_timestamp,expire_timestamp,"
                "source_partition,source_offset,transactional,log_end_offset,lag%s,log_start_offset,out_of_range,"
                "may_be_stale,expires_at,expired\n",
                p->history ? ",deleted" : "");
    }
}
