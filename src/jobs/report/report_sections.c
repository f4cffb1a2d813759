/* report_sections.c: the report's tables, built as the drivers hand their
 * findings over (report.c): the partitions with findings, the election
 * table, the consumer groups and the reset CSV, open transactions, pinned
 * compaction, the cluster of the KRaft metadata, records per hour per topic
 * (a small SVG histogram with its numbers) and the problems of the other
 * commands. Each table has a cap (its rbuf's limit, checked before a row is
 * written) and says how many rows it left out. Every text from the data
 * goes through rb_text. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/report/report_internal.h"
#include "kfsck/groups.h"
#include "kfsck/sys/kraft.h"

#define ROW_MAX 2048  /* the most a row may take: a row is only begun with this much room */

/* Room in a table's rows b for one more row of up to need bytes; else the
 * row is counted in *more, the rows the page does not show. */
static bool row_room(rbuf *b, size_t need, uint64_t *more)
{
    if (rb_room(b, need))
        return true;
    (*more)++;
    return false;
}

static void cell_text(rbuf *b, const char *s)
{
    rb_puts(b, "<td>");
    rb_text(b, s);
    rb_puts(b, "</td>");
}

static void cell_num(rbuf *b, int64_t v, const char *cls)
{
    char n[32];
    fmt_count(v, n, sizeof n);
    rb_printf(b, "<td class=\"n%s%s\">%s</td>", cls ? " " : "", cls ? cls : "", n);
}

static void cell_opt(rbuf *b, bool has, int64_t v)
{
    if (has)
        cell_num(b, v, NULL);
    else
        rb_puts(b, "<td class=\"n\">-</td>");
}

static void cell_tp(rbuf *b, const char *topic, int32_t partition)
{
    rb_puts(b, "<td class=\"tp\">");
    rb_text(b, topic && topic[0] ? topic : "?");
    if (partition >= 0)
        rb_printf(b, "-%d", partition);
    rb_puts(b, "</td>");
}

/* ---- partitions with findings (scan) ---------------------------------------------- */

void rs_finding_row(report_run *R, const kf_datadir_partition *p)
{
    bool cut = p->has_recovery_end && p->log.has_log_end && p->recovery_end_offset != p->log.log_end_offset;
    if (!p->errors && !p->warnings && !cut)
        return;
    R->findings_rows++;
    rbuf *b = &R->findings;
    if (!row_room(b, ROW_MAX, &R->findings_more))
        return;
    rb_printf(b, "<tr class=\"%s\" data-errors=\"%" PRIu64 "\">", p->errors ? "bad" : "warn", p->errors);
    cell_tp(b, p->id.topic, p->id.partition);
    if (p->has_broker)
        cell_num(b, p->broker, NULL);
    else
        rb_puts(b, "<td>-</td>");
    cell_num(b, (int64_t)p->errors, p->errors ? "bad" : NULL);
    cell_num(b, (int64_t)p->warnings, NULL);
    cell_opt(b, p->log.has_log_end, p->log.log_end_offset);
    cell_opt(b, p->has_recovery_end, p->recovery_end_offset);
    rb_puts(b, "<td>");
    size_t shown = 0;
    for (size_t i = 0; i < p->n_problems && shown < 3; i++) {
        const kf_problem *q = &p->problems[i];
        if (shown++)
            rb_puts(b, "<br>");
        rb_printf(b, "<code>%s</code> ", q->severity == KF_SEV_ERROR ? "error" : "warning");
        rb_text(b, q->code);
        if (q->has_offset)
            rb_printf(b, " at offset %" PRId64, q->offset);
        rb_puts(b, ": ");
        rb_text(b, q->message);
    }
    if (p->n_problems > shown)
        rb_printf(b, "<br>%zu more", p->n_problems - shown);
    rb_puts(b, "</td>");
    cell_text(b, p->id.dir);
    rb_puts(b, "</tr>\n");
}

/* ---- elections (replicas) ------------------------------------------------------------ */

static void broker_label(rbuf *b, const kf_replica *r)
{
    if (r->has_broker)
        rb_printf(b, "broker %d", r->broker);
    else
        rb_text(b, r->datadir);
}

void rs_election(report_run *R, const kf_replica_partition *p)
{
    bool matters = p->diverged || (p->has_unclean && p->unclean);
    for (size_t i = 0; i < p->nelections; i++)
        matters = matters || p->elections[i].offsets_lost || p->elections[i].acknowledged_missing ||
                  p->elections[i].acknowledged_lost;
    if (!matters)
        return;
    R->election_rows++;
    rbuf *b = &R->elections;
    if (!row_room(b, ROW_MAX * 2, &R->election_more))
        return;
    const kf_replica_election *best = p->has_best ? &p->elections[p->best] : NULL;
    bool risk = !best || best->acknowledged_missing || best->acknowledged_lost || p->diverged;
    rb_printf(b, "<tr class=\"%s\">", risk ? "bad" : "warn");
    cell_tp(b, p->topic, p->partition);
    rb_puts(b, "<td>");
    for (size_t i = 0; i < p->nreplicas; i++) {
        if (i)
            rb_puts(b, ", ");
        broker_label(b, &p->replicas[i]);
    }
    rb_puts(b, "</td>");
    cell_opt(b, p->has_high_watermark, p->high_watermark);
    rb_puts(b, "<td>");
    if (best)
        broker_label(b, &p->replicas[best->candidate]);
    else
        rb_puts(b, "none");
    if (p->has_unclean && best)
        rb_puts(b, p->unclean ? " <b>(unclean)</b>" : " (in the ISR/ELR)");
    rb_puts(b, "</td><td>");
    for (size_t i = 0; i < p->nelections; i++) {
        const kf_replica_election *e = &p->elections[i];
        rb_puts(b, i ? "<br>" : "");
        rb_puts(b, e == best ? "<b>" : "");
        broker_label(b, &p->replicas[e->candidate]);
        rb_printf(b, ": log end %" PRId64 ", followers lose %" PRId64 " offsets (%" PRId64
                     " acknowledged), %" PRId64 " acknowledged missing",
                  e->leader_log_end, e->offsets_lost, e->acknowledged_lost, e->acknowledged_missing);
        if (e->has_salvage && e->nsalvage)
            rb_printf(b, "; kfsck merge brings back %" PRId64, e->acknowledged_missing - e->acknowledged_missing_after_merge);
        rb_puts(b, e == best ? "</b>" : "");
    }
    rb_printf(b, "</td><td>%s</td></tr>\n", p->diverged ? "<b>diverged</b>" : "no");
}

/* ---- consumer groups (offsets, groups) ------------------------------------------------ */

static const char *state_name(kf_group_state s)
{
    return s == KF_GROUP_STABLE ? "stable" : s == KF_GROUP_DEAD ? "dead" : "empty";
}

/* Members of a group: its member records, or a classic group's metadata record's list. */
static size_t members(const kf_group *g)
{
    if (g->form == KF_GROUP_FROM_RECORDS)
        return g->nmembers;
    if (g->form != KF_GROUP_FROM_METADATA || !g->metadata)
        return 0;
    kf_dtree t;
    memset(&t, 0, sizeof t);
    kf_coord_record cr;
    kf_group_key k;
    size_t n = 0;
    if (kf_group_record_decode(g->metadata, &t, &cr, &k) == KF_OK && cr.value_root != KF_DNODE_NONE) {
        const kf_dnode *m = kf_dnode_field(&t, &t.nodes[cr.value_root], "members");
        for (uint32_t c = m ? m->first_child : KF_DNODE_NONE; c != KF_DNODE_NONE; c = t.nodes[c].next)
            n++;
    }
    kf_dtree_free(&t);
    return n;
}

static void csv_field(rbuf *b, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        rb_puts(b, s);
        return;
    }
    rb_puts(b, "\"");
    for (; *s; s++) {
        if (*s == '"')
            rb_puts(b, "\"");
        rb_put(b, s, 1);
    }
    rb_puts(b, "\"");
}

/* One line of `offsets --format reset-csv` (every group: group,topic,partition,offset). */
static void reset_line(report_run *R, const kf_offset_value *v)
{
    rbuf line;
    rb_init(&line, SIZE_MAX);
    csv_field(&line, v->group);
    rb_puts(&line, ",");
    csv_field(&line, v->topic);
    rb_printf(&line, ",%d,%" PRId64 "\n", v->partition, v->offset);
    if (line.oom)
        R->reset_csv.oom = true;
    else if (rb_room(&R->reset_csv, line.n))
        rb_put(&R->reset_csv, line.p, line.n);
    else
        R->reset_csv_cut = true;
    rb_free(&line);
}

static void row_detail(report_run *R, const kf_offset_value *v, const kf_offset_view *vw)
{
    bool note = vw->out_of_range != KF_IN_RANGE || vw->may_be_stale || vw->in_damage ||
                (vw->has_expires_at && vw->expired);
    if (!note)
        return;
    rbuf *b = &R->group_rows;
    if (!row_room(b, ROW_MAX, &R->group_more))
        return;
    rb_printf(b, "<tr class=\"%s\">", vw->out_of_range != KF_IN_RANGE || vw->in_damage ? "bad" : "warn");
    cell_text(b, v->group);
    cell_tp(b, v->topic, v->partition);
    cell_num(b, v->offset, NULL);
    cell_opt(b, vw->has_bounds, vw->log_start_offset);
    cell_opt(b, vw->has_bounds, vw->log_end_offset);
    cell_opt(b, vw->has_lag, vw->lag);
    rb_puts(b, "<td>");
    if (vw->out_of_range == KF_BELOW_LOG_START)
        rb_printf(b, "<b>below the log start</b>: earliest skips %" PRId64 ", latest skips %" PRId64 ". ",
                  vw->skipped_if_earliest, vw->skipped_if_latest);
    else if (vw->out_of_range == KF_ABOVE_LOG_END)
        rb_printf(b, "<b>past the log end</b>: earliest reads %" PRId64 " again. ", vw->reread_if_earliest);
    if (vw->in_damage)
        rb_puts(b, "<b>in damage</b> of the partition's log. ");
    if (vw->may_be_stale)
        rb_puts(b, "may be stale (commits lost after it). ");
    if (vw->has_expires_at && vw->expired) {
        char w[40];
        kf_format_time(vw->expires_at, false, w, sizeof w);
        rb_printf(b, "expired at %s. ", w);
    }
    rb_puts(b, "</td></tr>\n");
}

void rs_offsets(report_run *R, kf_offsets_job *j, const kf_offsets_row *rows, size_t n)
{
    const kf_group *gs;
    size_t ng = kf_groups_list(kf_offsets_job_groups(j), &gs);
    R->sum->groups = ng;
    for (size_t i = 0; i < n; i++) {
        reset_line(R, rows[i].value);
        row_detail(R, rows[i].value, &rows[i].view);
    }
    /* rows are sorted by group, as the groups are */
    size_t r = 0;
    for (size_t g = 0; g < ng; g++) {
        const kf_group *G = &gs[g];
        uint64_t parts = 0, oor = 0, stale = 0, expired = 0, damaged = 0;
        int64_t lag = 0;
        bool has_lag = false, has_exp = false;
        int64_t next_exp = 0;
        while (r < n && strcmp(rows[r].value->group, G->id) < 0)
            r++;
        for (; r < n && !strcmp(rows[r].value->group, G->id); r++) {
            const kf_offset_view *vw = &rows[r].view;
            parts++;
            oor += vw->out_of_range != KF_IN_RANGE;
            stale += vw->may_be_stale;
            damaged += vw->in_damage;
            if (vw->has_lag && vw->lag > 0) {
                lag += vw->lag;
                has_lag = true;
            }
            if (vw->has_expires_at && vw->expired)
                expired++;
            else if (vw->has_expires_at && (!has_exp || vw->expires_at < next_exp)) {
                next_exp = vw->expires_at;
                has_exp = true;
            }
        }
        if (oor)
            R->sum->groups_out_of_range++;
        rbuf *b = &R->groups;
        if (!row_room(b, ROW_MAX, &R->group_more))
            continue;
        rb_printf(b, "<tr class=\"%s\" data-out-of-range=\"%" PRIu64 "\">", oor || damaged ? "bad" : stale || expired ? "warn" : "",
                  oor);
        cell_text(b, G->id);
        cell_text(b, G->kind == KF_GROUP_NO_KIND ? "-" : kf_group_kind_name(G->kind));
        cell_text(b, state_name(G->state));
        cell_num(b, (int64_t)members(G), NULL);
        cell_num(b, (int64_t)parts, NULL);
        cell_opt(b, has_lag, lag);
        cell_num(b, (int64_t)oor, oor ? "bad" : NULL);
        cell_num(b, (int64_t)stale, stale ? "warn" : NULL);
        cell_num(b, (int64_t)expired, expired ? "warn" : NULL);
        if (has_exp) {
            char w[40];
            kf_format_time(next_exp, false, w, sizeof w);
            cell_text(b, w);
        } else {
            rb_puts(b, "<td>-</td>");
        }
        rb_puts(b, "</tr>\n");
    }
}

/* ---- open transactions (txns) ----------------------------------------------------------- */

void rs_txn_open(report_run *R, const kf_partition *p, const kf_txn_report *r)
{
    R->txn_rows++;
    rbuf *b = &R->txns;
    if (!row_room(b, ROW_MAX, &R->txn_more))
        return;
    const kf_open_txn *x = &r->txn;
    rb_printf(b, "<tr class=\"%s\">", r->hanging || r->marker_missing ? "bad" : "");
    cell_tp(b, p->topic, p->partition);
    rb_printf(b, "<td class=\"n\">%" PRId64 " / %d</td>", x->producer_id, x->producer_epoch);
    const kf_txn_coord_entry *e = r->coordinator;
    cell_text(b, e ? e->transactional_id : "-");
    const char *st = e ? kf_txn_state_name(e->state) : NULL;
    cell_text(b, st ? st : e ? "unknown" : "-");
    cell_num(b, x->first_offset, NULL);
    cell_opt(b, x->last_offset >= 0, x->last_offset);
    char a[32] = "-", i[32] = "-";
    if (r->has_age)
        kf_format_duration(r->age_ms, a, sizeof a);
    if (r->has_idle)
        kf_format_duration(r->idle_ms, i, sizeof i);
    cell_text(b, a);
    cell_text(b, i);
    rb_printf(b, "<td>%s%s</td>", r->hanging ? "<b>hanging</b>" : "open",
              r->marker_missing ? ", <b>marker missing</b>" : "");
    rb_puts(b, "<td><code>");
    if (p->topic[0] && p->partition >= 0 && (r->hanging || r->marker_missing)) {
        rb_puts(b, "kafka-transactions.sh --bootstrap-server HOST:PORT abort --topic ");
        rb_text(b, p->topic);
        rb_printf(b, " --partition %d --start-offset %" PRId64, p->partition, x->first_offset);
    }
    rb_puts(b, "</code></td></tr>\n");
}

/* ---- compaction --------------------------------------------------------------------------- */

void rs_compaction(report_run *R, const kf_compaction_result *r)
{
    const kf_cleanable *c = &r->cleanable;
    if (!r->pinned && !c->would_clean && !c->cleanable_bytes && !r->incomplete)
        return;
    R->comp_rows++;
    rbuf *b = &R->compaction;
    if (!row_room(b, ROW_MAX, &R->comp_more))
        return;
    const kf_partition *p = r->partition;
    char s1[32], s2[32];
    rb_printf(b, "<tr class=\"%s\">", r->pinned ? "bad" : "");
    cell_tp(b, p->topic, p->partition);
    fmt_size(r->bytes, s1, sizeof s1);
    cell_text(b, s1);
    if (c->has_ratio)
        rb_printf(b, "<td class=\"n\">%.3f</td>", c->dirty_ratio);
    else
        rb_puts(b, "<td class=\"n\">-</td>");
    cell_text(b, c->would_clean ? "yes" : "no");
    cell_num(b, c->first_dirty_offset, NULL);
    cell_num(b, c->first_uncleanable_offset, NULL);
    cell_text(b, kf_uncleanable_reason_name(c->reason));
    rb_puts(b, "<td>");
    if (r->pinned) {
        rb_printf(b, "<b>producer %" PRId64 "</b> from offset %" PRId64, r->pinned_by.producer_id,
                  r->pinned_by.first_offset);
        if (r->pinning.transactional_id) {
            rb_puts(b, ", transactional id ");
            rb_text(b, r->pinning.transactional_id);
        }
        if (r->pinning.has_age) {
            kf_format_duration(r->pinning.age_ms, s2, sizeof s2);
            rb_printf(b, ", age %s%s", s2, r->pinning.hanging ? " (<b>hanging</b>)" : "");
        }
    } else {
        rb_puts(b, "-");
    }
    rb_puts(b, "</td>");
    fmt_size(r->reclaimable_bytes, s2, sizeof s2);
    cell_text(b, s2);
    cell_num(b, (int64_t)r->keys, NULL);
    rb_puts(b, "</tr>\n");
}

/* ---- the cluster (metadata) ------------------------------------------------------------------ */

static void int_list(rbuf *b, const kf_md_ints *v)
{
    rb_puts(b, "[");
    for (uint32_t i = 0; i < v->n; i++)
        rb_printf(b, "%s%d", i ? "," : "", v->v[i]);
    rb_puts(b, "]");
}

void rs_cluster(report_run *R, const kf_metadata *m)
{
    rbuf *b = &R->cluster;
    const kf_metadata_info *in = kf_metadata_get_info(m);
    const kf_md_broker *const *br;
    size_t nb = kf_metadata_brokers(m, &br);
    const kf_md_topic *const *tp;
    size_t nt = kf_metadata_topics(m, &tp);
    uint64_t parts = 0, offline = 0, under = 0;
    for (size_t i = 0; i < nt; i++)
        for (uint32_t k = 0; k < tp[i]->nparts; k++) {
            parts++;
            offline += tp[i]->parts[k].leader < 0;
            under += tp[i]->parts[k].isr.n < tp[i]->parts[k].replicas.n;
        }
    rb_puts(b, "<table class=\"figs wide\"><tr><th>cluster id</th><td>");
    rb_text(b, in->cluster_id ? in->cluster_id : "unknown");
    rb_puts(b, "</td></tr><tr><th>image from</th><td>");
    if (in->snapshot) {
        rb_puts(b, "snapshot ");
        rb_text(b, in->snapshot);
        rb_puts(b, ", then ");
    }
    if (in->has_last_offset)
        rb_printf(b, "the log up to offset %" PRId64, in->last_offset);
    else
        rb_puts(b, "no log record");
    rb_printf(b, " (%" PRIu64 " records)</td></tr>", in->records);
    if (in->has_metadata_version)
        rb_printf(b, "<tr><th>metadata.version</th><td>%d</td></tr>", in->metadata_version);
    if (in->has_voters) {
        rb_puts(b, "<tr><th>voters</th><td>");
        for (size_t i = 0; i < in->nvoters; i++)
            rb_printf(b, "%s%d", i ? ", " : "", in->voters[i]);
        rb_puts(b, "</td></tr>");
    }
    rb_printf(b, "<tr><th>brokers, topics, partitions</th><td>%zu, %zu, %" PRIu64 "</td></tr>", nb, nt, parts);
    rb_printf(b, "<tr%s><th>partitions with no leader</th><td>%" PRIu64 "</td></tr>", offline ? " class=\"bad\"" : "",
              offline);
    rb_printf(b, "<tr%s><th>under-replicated partitions (ISR below replicas)</th><td>%" PRIu64 "</td></tr>",
              under ? " class=\"warn\"" : "", under);
    if (in->damaged || in->not_applied || in->open_transaction)
        rb_printf(b, "<tr class=\"bad\"><th>damage in the metadata log</th><td>%" PRIu64 " damaged, %" PRIu64
                     " records not applied%s</td></tr>",
                  in->damaged, in->not_applied, in->open_transaction ? ", ends inside a metadata transaction" : "");
    rb_puts(b, "</table>\n");
    if (nb) {
        rb_puts(b, "<table class=\"list\"><thead><tr><th>broker</th><th>epoch</th><th>fenced</th><th>rack</th>"
                   "<th>listeners</th></tr></thead><tbody>");
        for (size_t i = 0; i < nb && rb_room(b, ROW_MAX); i++) {
            rb_printf(b, "<tr%s><td class=\"n\">%d</td><td class=\"n\">%" PRId64 "</td><td>%s</td>",
                      br[i]->fenced ? " class=\"warn\"" : "", br[i]->id, br[i]->epoch, br[i]->fenced ? "yes" : "no");
            cell_text(b, br[i]->rack ? br[i]->rack : "-");
            rb_puts(b, "<td>");
            for (uint32_t k = 0; k < br[i]->nlisteners; k++) {
                rb_puts(b, k ? ", " : "");
                rb_text(b, br[i]->listeners[k].name);
                rb_puts(b, "://");
                rb_text(b, br[i]->listeners[k].host);
                rb_printf(b, ":%d", br[i]->listeners[k].port);
            }
            rb_puts(b, "</td></tr>");
        }
        rb_puts(b, "</tbody></table>\n");
    }
    /* the partitions that need a look: no leader, or an ISR short of the replicas */
    uint64_t shown = 0, more = 0;
    for (size_t i = 0; i < nt; i++)
        for (uint32_t k = 0; k < tp[i]->nparts; k++) {
            const kf_md_partition *p = &tp[i]->parts[k];
            if (p->leader >= 0 && p->isr.n >= p->replicas.n)
                continue;
            if (!rb_room(b, ROW_MAX) || shown >= 200) {
                more++;
                continue;
            }
            if (!shown++)
                rb_puts(b, "<table class=\"list\"><thead><tr><th>partition</th><th>leader</th><th>replicas</th>"
                           "<th>ISR</th><th>ELR</th><th>leader epoch</th></tr></thead><tbody>");
            rb_printf(b, "<tr class=\"%s\">", p->leader < 0 ? "bad" : "warn");
            cell_tp(b, tp[i]->name, p->id);
            rb_printf(b, "<td class=\"n\">%d</td><td>", p->leader);
            int_list(b, &p->replicas);
            rb_puts(b, "</td><td>");
            int_list(b, &p->isr);
            rb_puts(b, "</td><td>");
            int_list(b, &p->elr);
            rb_printf(b, "</td><td class=\"n\">%d</td></tr>", p->leader_epoch);
        }
    if (shown)
        rb_puts(b, "</tbody></table>\n");
    if (more)
        rb_printf(b, "<p class=\"cut\">%" PRIu64 " more such partitions (the embedded kfsck-metadata lines list them "
                     "all when they fit).</p>\n",
                  more);
    /* topic and broker configs, secrets redacted */
    const kf_md_config *const *cf;
    size_t ncf = kf_metadata_configs(m, &cf);
    if (ncf) {
        rb_printf(b, "<details><summary>%zu configs set in the metadata</summary><table class=\"list\"><thead><tr>"
                     "<th>resource</th><th>name</th><th>config</th><th>value</th></tr></thead><tbody>",
                  ncf);
        size_t i = 0;
        for (; i < ncf && rb_room(b, ROW_MAX); i++) {
            const char *rt = kf_config_resource_name(cf[i]->resource_type);
            bool secret = kf_config_is_secret(cf[i]->name, strlen(cf[i]->name));
            rb_puts(b, "<tr>");
            cell_text(b, rt ? rt : "?");
            cell_text(b, cf[i]->resource_name);
            cell_text(b, cf[i]->name);
            cell_text(b, secret ? KF_REDACTED : cf[i]->value ? cf[i]->value : "null");
            rb_puts(b, "</tr>");
        }
        rb_puts(b, "</tbody></table>");
        if (i < ncf)
            rb_printf(b, "<p class=\"cut\">%zu more configs: see the embedded kfsck-metadata lines or run kfsck "
                         "metadata.</p>",
                      ncf - i);
        rb_puts(b, "</details>\n");
    }
}

/* ---- records per hour per topic (stats) --------------------------------------------------- */

#define HIST_BARS 96

void rs_stats_group(report_run *R, const kf_stats_group *g, const kf_tbucket *v, size_t n)
{
    rbuf *b = &R->stats;
    R->stats_topics++;
    if (!rb_room(b, 12 << 10)) {
        R->stats_more++;
        return;
    }
    char recs[32], bytes[32], t0[40], t1[40];
    fmt_count((int64_t)g->records, recs, sizeof recs);
    fmt_size(g->bytes, bytes, sizeof bytes);
    rb_puts(b, "<div class=\"hist\"><h3>");
    rb_text(b, g->topic[0] ? g->topic : "(segment files outside a partition directory)");
    rb_printf(b, "</h3><p>%s records, %s in %" PRIu64 " partition%s", recs, bytes, g->partitions,
              g->partitions == 1 ? "" : "s");
    if (g->has_ts) {
        kf_format_time(g->min_ts, false, t0, sizeof t0);
        kf_format_time(g->max_ts, false, t1, sizeof t1);
        char late[32];
        kf_format_duration(g->max_late, late, sizeof late);
        rb_printf(b, ", timestamps %s to %s, most late %s", t0, t1, late);
    }
    if (g->skipped)
        rb_printf(b, ", <b>%" PRIu64 " damaged batches skipped</b>", g->skipped);
    rb_puts(b, "</p>");
    if (!n) {
        rb_puts(b, "<p>no record with a timestamp</p></div>\n");
        return;
    }
    /* hours from the first bucket to the last, in at most HIST_BARS bars */
    int64_t first = v[0].start, last = v[n - 1].start, hour = 3600000;
    int64_t hours = (last - first) / hour + 1;
    int64_t per = hours > HIST_BARS ? (hours + HIST_BARS - 1) / HIST_BARS : 1;
    size_t nbars = (size_t)((hours + per - 1) / per);
    uint64_t vals[HIST_BARS] = {0}, peak = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = (size_t)((v[i].start - first) / hour / per);
        if (k < nbars)
            vals[k] += v[i].records;
    }
    for (size_t k = 0; k < nbars; k++)
        peak = vals[k] > peak ? vals[k] : peak;
    double w = 960.0 / (double)(nbars < 24 ? 24 : nbars);
    rb_printf(b, "<svg class=\"histo\" viewBox=\"0 0 1000 90\" role=\"img\" preserveAspectRatio=\"none\"><title>records "
                 "per %s</title>",
              per == 1 ? "hour" : "bar");
    for (size_t k = 0; k < nbars; k++) {
        if (!vals[k])
            continue;
        double h = 70.0 * (double)vals[k] / (double)(peak ? peak : 1);
        kf_format_time(first + (int64_t)k * per * hour, false, t0, sizeof t0);
        fmt_count((int64_t)vals[k], recs, sizeof recs);
        rb_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>%s: %s records</title></rect>",
                  20 + w * (double)k, 75 - h, w > 2 ? w - 1 : w, h < 1 ? 1 : h, t0, recs);
    }
    kf_format_time(first, false, t0, sizeof t0);
    kf_format_time(first + (int64_t)nbars * per * hour, false, t1, sizeof t1);
    fmt_count((int64_t)peak, recs, sizeof recs);
    rb_printf(b, "<text x=\"20\" y=\"88\">%s</text><text x=\"980\" y=\"88\" text-anchor=\"end\">%s</text>"
                 "<text x=\"18\" y=\"10\" text-anchor=\"end\" class=\"peak\">%s</text></svg>",
              t0, t1, recs);
    rb_printf(b, "<p class=\"small\">%" PRIu64 " hours with records; busiest %s: %s records (each bar %" PRId64
                 " hour%s)</p>",
              (uint64_t)n, per == 1 ? "hour" : "bar", recs, per, per == 1 ? "" : "s");
    rb_puts(b, "<details><summary>the numbers</summary><table class=\"list\"><thead><tr><th>hour (UTC)</th>"
               "<th>records</th><th>bytes</th></tr></thead><tbody>");
    size_t shown = n < 48 ? n : 48;
    for (size_t i = n - shown; i < n; i++) {
        kf_format_time(v[i].start, false, t0, sizeof t0);
        rb_printf(b, "<tr><td>%s</td>", t0);
        cell_num(b, (int64_t)v[i].records, NULL);
        cell_num(b, (int64_t)v[i].bytes, NULL);
        rb_puts(b, "</tr>");
    }
    rb_puts(b, "</tbody></table>");
    if (shown < n)
        rb_printf(b, "<p class=\"cut\">the last %zu of %zu hours; kfsck stats lists them all.</p>", shown, n);
    rb_puts(b, "</details></div>\n");
}

/* ---- the other commands' problems --------------------------------------------------------- */

void rs_problem(report_run *R, const char *command, const kf_problem *p, const char *file)
{
    R->problem_rows++;
    rbuf *b = &R->problems;
    if (!row_room(b, ROW_MAX, &R->problem_more))
        return;
    rb_printf(b, "<tr class=\"%s\"><td>%s</td>", p->severity == KF_SEV_ERROR ? "bad" : "warn", command);
    cell_text(b, p->code);
    cell_text(b, p->file ? p->file : file ? file : "");
    cell_opt(b, p->has_offset, p->offset);
    cell_text(b, p->message);
    rb_puts(b, "</tr>\n");
}
