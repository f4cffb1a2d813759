/* report_json.c: each command's findings as the JSON lines its `--json`
 * prints (the same types, fields, order and values: docs/kfsck.1), for the
 * page's <script type="application/json" id="kfsck-CMD"> elements, so a
 * script takes them back out as it would read the command's output. The
 * strings are escaped to be safe inside a script element
 * (rb_json_str). A command's lines share a byte budget (jlines): the page
 * stays small whatever the inputs, and says how many lines it left out. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "jobs/report/report_internal.h"
#include "kfsck/sys/kraft.h"

/* ---- the line writer -------------------------------------------------------- */

void jl_init(jlines *j, const char *command, size_t budget)
{
    memset(j, 0, sizeof *j);
    j->command = command;
    rb_init(&j->out, budget);
    rb_init(&j->line, SIZE_MAX);
}

void jl_free(jlines *j)
{
    rb_free(&j->out);
    rb_free(&j->line);
}

void jl_begin(jlines *j, const char *type)
{
    j->line.n = 0;
    j->comma = false;
    rb_puts(&j->line, "{");
    jl_str(j, "type", type);
}

static void finish(jlines *j, bool keep)
{
    rb_puts(&j->line, "}\n");
    j->lines++;
    if (j->line.oom)
        j->out.oom = true;
    if (keep || rb_room(&j->out, j->line.n)) {
        rb_put(&j->out, j->line.p, j->line.n);
    } else {
        j->omitted++;
        j->omitted_bytes += j->line.n;
    }
    j->line.n = 0;
}

void jl_end(jlines *j) { finish(j, false); }
void jl_end_keep(jlines *j) { finish(j, true); }

void jl_key(jlines *j, const char *key)
{
    if (j->comma)
        rb_puts(&j->line, ",");
    j->comma = true;
    if (key) {
        rb_json_str(&j->line, key);
        rb_puts(&j->line, ":");
    }
}

void jl_int(jlines *j, const char *key, int64_t v)
{
    jl_key(j, key);
    rb_printf(&j->line, "%" PRId64, v);
}

void jl_uint(jlines *j, const char *key, uint64_t v)
{
    jl_key(j, key);
    rb_printf(&j->line, "%" PRIu64, v);
}

void jl_null(jlines *j, const char *key)
{
    jl_key(j, key);
    rb_puts(&j->line, "null");
}

void jl_opt(jlines *j, const char *key, bool has, int64_t v)
{
    if (has)
        jl_int(j, key, v);
    else
        jl_null(j, key);
}

void jl_bool(jlines *j, const char *key, bool v)
{
    jl_key(j, key);
    rb_puts(&j->line, v ? "true" : "false");
}

void jl_double(jlines *j, const char *key, double v)
{
    jl_key(j, key);
    rb_printf(&j->line, "%.17g", v);
}

void jl_strn(jlines *j, const char *key, const char *s, size_t n)
{
    jl_key(j, key);
    rb_json_strn(&j->line, s, n);
}

void jl_str(jlines *j, const char *key, const char *s) { jl_strn(j, key, s, s ? strlen(s) : 0); }

void jl_uuid(jlines *j, const char *key, const uint8_t id[16])
{
    char b[23];
    kf_uuid_to_b64(id, b);
    jl_str(j, key, b);
}

/* A container's opening or closing bracket. */
static void open_with(jlines *j, const char *key, const char *bracket)
{
    jl_key(j, key);
    rb_puts(&j->line, bracket);
    j->comma = false;
}

static void close_with(jlines *j, const char *bracket)
{
    rb_puts(&j->line, bracket);
    j->comma = true;
}

void jl_obj_open(jlines *j, const char *key) { open_with(j, key, "{"); }
void jl_obj_close(jlines *j) { close_with(j, "}"); }
void jl_arr_open(jlines *j, const char *key) { open_with(j, key, "["); }
void jl_arr_close(jlines *j) { close_with(j, "]"); }

void jl_script(rbuf *page, const jlines *j)
{
    rb_printf(page, "<script type=\"application/json\" id=\"kfsck-%s\" data-lines=\"%" PRIu64
                    "\" data-omitted=\"%" PRIu64 "\">\n",
              j->command, j->lines, j->omitted);
    rb_put(page, j->out.p, j->out.n);
    if (j->omitted)
        rb_printf(page,
                  "{\"type\":\"omitted\",\"command\":\"%s\",\"lines\":%" PRIu64 ",\"bytes\":%" PRIu64
                  ",\"why\":\"the report keeps %zu bytes of each command's lines: run kfsck %s --json for them "
                  "all\"}\n",
                  j->command, j->omitted, j->omitted_bytes, j->out.limit, j->command);
    rb_puts(page, "</script>\n");
}

/* ---- shared pieces ------------------------------------------------------------ */

static void epochs(jlines *j, const char *key, const kf_leader_epoch *e, size_t n)
{
    jl_arr_open(j, key);
    for (size_t i = 0; i < n; i++) {
        jl_obj_open(j, NULL);
        jl_int(j, "epoch", e[i].epoch);
        jl_int(j, "start_offset", e[i].start_offset);
        jl_obj_close(j);
    }
    jl_arr_close(j);
}

void jl_problem(jlines *j, const kf_problem *p, const char *file)
{
    jl_begin(j, "problem");
    jl_str(j, "file", p->file ? p->file : file);
    jl_uint(j, "position", p->position);
    jl_opt(j, "offset", p->has_offset, p->offset);
    jl_str(j, "code", p->code);
    jl_str(j, "severity", p->severity == KF_SEV_ERROR ? "error" : "warning");
    jl_str(j, "message", p->message);
    if (p->has_length)
        jl_uint(j, "length", p->length);
    for (unsigned i = 0; i < p->nextra && i < 3; i++) {
        if (p->extra[i].is_null)
            jl_null(j, p->extra[i].name);
        else if (p->extra[i].is_int)
            jl_int(j, p->extra[i].name, p->extra[i].i);
        else
            jl_str(j, p->extra[i].name, p->extra[i].text);
    }
    jl_end(j);
}

/* ---- scan ----------------------------------------------------------------------- */

void jl_scan_partition(jlines *j, const kf_datadir_partition *p)
{
    const kf_partition_summary *lg = &p->log;
    jl_begin(j, "partition");
    jl_str(j, "datadir", p->datadir);
    jl_str(j, "topic", p->topic);
    jl_int(j, "partition", p->partition);
    jl_str(j, "dir", p->dir);
    jl_str(j, "topic_id", p->has_topic_id ? p->topic_id : NULL);
    jl_uint(j, "segments", lg->segments);
    jl_uint(j, "bytes", lg->bytes);
    jl_opt(j, "first_offset", lg->has_offsets, lg->first_offset);
    jl_opt(j, "log_end_offset", lg->has_log_end, lg->log_end_offset);
    jl_opt(j, "recovery_point", p->recovery_point.has, p->recovery_point.offset);
    jl_opt(j, "high_watermark", p->high_watermark.has, p->high_watermark.offset);
    jl_opt(j, "log_start_offset", p->log_start_offset.has, p->log_start_offset.offset);
    jl_opt(j, "cleaner_offset", p->cleaner_offset.has, p->cleaner_offset.offset);
    epochs(j, "leader_epochs", p->leader_epochs, p->n_leader_epochs);
    jl_opt(j, "broker", p->has_broker, p->broker);
    jl_str(j, "cluster_id", p->cluster_id);
    jl_opt(j, "recovery_end_offset", p->has_recovery_end, p->recovery_end_offset);
    jl_uint(j, "errors", p->errors);
    jl_uint(j, "warnings", p->warnings);
    jl_end(j);
    for (size_t i = 0; i < p->n_problems; i++)
        jl_problem(j, &p->problems[i], NULL);
}

void jl_scan_summary(jlines *j, uint64_t datadirs, const kf_datadir_totals *t)
{
    jl_begin(j, "summary");
    jl_uint(j, "datadirs", datadirs);
    jl_uint(j, "partitions", t->partitions);
    jl_uint(j, "segments", t->segments);
    jl_uint(j, "bytes", t->bytes);
    jl_uint(j, "errors", t->errors);
    jl_uint(j, "warnings", t->warnings);
    jl_end_keep(j);
}

/* ---- predict -------------------------------------------------------------------- */

void jl_predict_datadir(jlines *j, const kf_predict_datadir *d)
{
    jl_begin(j, "datadir");
    jl_str(j, "datadir", d->datadir);
    jl_bool(j, "clean_shutdown", d->clean_shutdown);
    jl_opt(j, "broker_epoch", d->has_broker_epoch, d->broker_epoch);
    jl_uint(j, "partitions", d->partitions);
    jl_uint(j, "partitions_to_recover", d->partitions_to_recover);
    jl_uint(j, "bytes_to_recover", d->bytes_to_recover);
    jl_uint(j, "recovery_threads", d->recovery_threads);
    jl_uint(j, "recovery_rate", d->recovery_rate);
    jl_double(j, "estimated_recovery_seconds", d->estimated_recovery_seconds);
    jl_uint(j, "fatal", d->fatal);
    jl_uint(j, "partitions_harmed", d->n_harmed);
    jl_str(j, "kraft_snapshot_cut", d->kraft_snapshot_cut);
    jl_end_keep(j);
}

void jl_predict_action(jlines *j, const kf_predict_action *a)
{
    jl_begin(j, "action");
    jl_str(j, "datadir", a->datadir);
    jl_str(j, "topic", a->topic);
    jl_opt(j, "partition", a->topic != NULL, a->partition);
    jl_str(j, "action", kf_predict_action_name(a->action));
    jl_str(j, "file", a->file);
    jl_str(j, "reason", a->reason);
    jl_uint(j, "bytes", a->bytes);
    if (a->action == KF_ACT_TRUNCATE_SEGMENT) {
        jl_uint(j, "position", a->position);
        jl_int(j, "offset", a->offset);
        jl_int(j, "offsets_lost", a->offsets_lost);
    }
    jl_end(j);
}

void jl_predict_partition(jlines *j, const kf_predict_partition *p)
{
    jl_begin(j, "partition");
    jl_str(j, "datadir", p->datadir);
    jl_str(j, "topic", p->topic);
    jl_int(j, "partition", p->partition);
    jl_str(j, "dir", p->dir);
    jl_str(j, "state", kf_predict_state_name(p->state));
    jl_int(j, "recovery_point", p->recovery_point);
    jl_int(j, "log_start_offset", p->log_start_offset);
    jl_int(j, "log_end_offset_before", p->log_end_offset_before);
    jl_int(j, "log_end_offset_after", p->log_end_offset_after);
    jl_opt(j, "high_watermark", p->has_high_watermark, p->high_watermark);
    jl_int(j, "offsets_lost", p->offsets_lost);
    jl_int(j, "acknowledged_lost", p->acknowledged_lost);
    jl_int(j, "acknowledged_missing", p->acknowledged_missing);
    jl_int(j, "offsets_lost_inside", p->offsets_lost_inside);
    jl_arr_open(j, "damage_kept");
    for (size_t i = 0; i < p->n_damage_kept; i++) {
        const kf_damage_kept *k = &p->damage_kept[i];
        jl_obj_open(j, NULL);
        jl_str(j, "file", k->file);
        jl_uint(j, "position", k->position);
        jl_int(j, "offset", k->offset);
        jl_str(j, "code", k->code);
        jl_str(j, "error", k->error);
        jl_obj_close(j);
    }
    jl_arr_close(j);
    if (p->damage_kept_omitted)
        jl_uint(j, "damage_kept_omitted", p->damage_kept_omitted);
    jl_arr_open(j, "groups_affected");
    for (size_t i = 0; i < p->n_groups_affected; i++) {
        const kf_group_affected *g = &p->groups_affected[i];
        jl_obj_open(j, NULL);
        jl_str(j, "group", g->group);
        jl_str(j, "topic", g->topic);
        jl_int(j, "partition", g->partition);
        jl_opt(j, "offset_now", g->has_offset_now, g->offset_now);
        jl_opt(j, "offset_after", g->has_offset_after, g->offset_after);
        jl_obj_close(j);
    }
    jl_arr_close(j);
    jl_uint(j, "segments_to_recover", p->segments_to_recover);
    jl_uint(j, "bytes_to_recover", p->bytes_to_recover);
    jl_str(j, "producer_state", kf_producer_load_name(p->producer_state));
    jl_opt(j, "producer_snapshot_offset", p->has_producer_snapshot_offset, p->producer_snapshot_offset);
    jl_arr_open(j, "retention_deletes");
    for (size_t i = 0; i < p->n_retention_deletes; i++) {
        const kf_retention_delete *r = &p->retention_deletes[i];
        jl_obj_open(j, NULL);
        jl_str(j, "file", r->file);
        jl_int(j, "base_offset", r->base_offset);
        jl_str(j, "reason", kf_retention_reason_name(r->reason));
        jl_uint(j, "bytes", r->bytes);
        jl_obj_close(j);
    }
    jl_arr_close(j);
    jl_uint(j, "future_timestamps", p->future_timestamps);
    jl_str(j, "retention_source", p->retention_source);
    jl_end(j);
}

void jl_predict_summary(jlines *j, const kf_predict_summary *s, int64_t acknowledged_missing, uint64_t damage_kept,
                        uint64_t groups_affected, uint64_t harmed)
{
    jl_begin(j, "summary");
    jl_uint(j, "datadirs", s->datadirs);
    jl_uint(j, "partitions", s->partitions);
    jl_int(j, "offsets_lost", s->offsets_lost);
    jl_int(j, "acknowledged_lost", s->acknowledged_lost);
    jl_double(j, "estimated_recovery_seconds", s->estimated_recovery_seconds);
    jl_uint(j, "fatal", s->fatal);
    jl_int(j, "acknowledged_missing", acknowledged_missing);
    jl_uint(j, "damage_kept", damage_kept);
    jl_uint(j, "groups_affected", groups_affected);
    jl_uint(j, "partitions_harmed", harmed);
    jl_end_keep(j);
}

/* ---- replicas ------------------------------------------------------------------- */

static void ints(jlines *j, const char *key, bool has, const int32_t *v, size_t n)
{
    if (!has) {
        jl_null(j, key);
        return;
    }
    jl_arr_open(j, key);
    for (size_t i = 0; i < n; i++)
        jl_int(j, NULL, v[i]);
    jl_arr_close(j);
}

static void broker_of(jlines *j, const char *key, const kf_replica *r) { jl_opt(j, key, r->has_broker, r->broker); }

static void election(jlines *j, const kf_replica_partition *p, const kf_replica_election *e)
{
    const kf_replica *c = &p->replicas[e->candidate];
    jl_begin(j, "election");
    jl_str(j, "topic", p->topic);
    jl_int(j, "partition", p->partition);
    broker_of(j, "candidate", c);
    jl_str(j, "datadir", c->datadir);
    jl_arr_open(j, "followers");
    for (size_t k = 0; k < e->nfollowers; k++) {
        const kf_replica_follower *f = &e->followers[k];
        const kf_replica *r = &p->replicas[f->replica];
        jl_obj_open(j, NULL);
        broker_of(j, "broker", r);
        jl_str(j, "datadir", r->datadir);
        jl_int(j, "truncate_to", f->truncate_to);
        jl_int(j, "offsets_lost", f->offsets_lost);
        jl_int(j, "acknowledged_lost", f->acknowledged_lost);
        jl_uint(j, "rounds", f->rounds);
        jl_obj_close(j);
    }
    jl_arr_close(j);
    jl_int(j, "offsets_lost", e->offsets_lost);
    jl_int(j, "acknowledged_lost", e->acknowledged_lost);
    jl_int(j, "leader_log_end", e->leader_log_end);
    jl_int(j, "acknowledged_missing", e->acknowledged_missing);
    if (e->has_salvage) {
        jl_arr_open(j, "salvage");
        for (size_t k = 0; k < e->nsalvage; k++) {
            const kf_replica_salvage *sv = &e->salvage[k];
            jl_obj_open(j, NULL);
            broker_of(j, "broker", &p->replicas[sv->replica]);
            jl_str(j, "datadir", p->replicas[sv->replica].datadir);
            jl_int(j, "from_offset", sv->from_offset);
            jl_int(j, "to_offset", sv->to_offset);
            jl_obj_close(j);
        }
        jl_arr_close(j);
        jl_int(j, "acknowledged_missing_after_merge", e->acknowledged_missing_after_merge);
    } else {
        jl_null(j, "salvage");
        jl_null(j, "acknowledged_missing_after_merge");
    }
    jl_end(j);
}

void jl_replicas_partition(jlines *j, const kf_replica_partition *p)
{
    for (size_t i = 0; i < p->nreplicas; i++) {
        const kf_replica *r = &p->replicas[i];
        jl_begin(j, "replica");
        jl_str(j, "topic", p->topic);
        jl_int(j, "partition", p->partition);
        broker_of(j, "broker", r);
        jl_str(j, "datadir", r->datadir);
        jl_str(j, "dir", r->dir);
        jl_str(j, "source", r->source);
        jl_opt(j, "log_start_offset", r->has_log_start, r->log_start_offset);
        jl_opt(j, "log_end_offset", r->has_log_end, r->log_end_offset);
        jl_opt(j, "high_watermark", r->has_high_watermark, r->high_watermark);
        epochs(j, "leader_epochs", r->leader_epochs, r->n_leader_epochs);
        jl_bool(j, "epochs_from_batches", r->epochs_from_batches);
        jl_bool(j, "damaged", r->damaged);
        jl_uint(j, "errors", r->errors);
        jl_end(j);
    }
    for (size_t i = 0; i < p->nelections; i++)
        election(j, p, &p->elections[i]);
    jl_begin(j, "partition");
    jl_str(j, "topic", p->topic);
    jl_int(j, "partition", p->partition);
    jl_arr_open(j, "replicas");
    for (size_t i = 0; i < p->nreplicas; i++)
        jl_opt(j, NULL, p->replicas[i].has_broker, p->replicas[i].broker);
    jl_arr_close(j);
    jl_opt(j, "high_watermark", p->has_high_watermark, p->high_watermark);
    jl_opt(j, "leader", p->has_metadata, p->leader);
    ints(j, "isr", p->has_metadata, p->isr, p->nisr);
    ints(j, "elr", p->has_metadata, p->elr, p->nelr);
    jl_opt(j, "leader_epoch", p->has_metadata, p->leader_epoch);
    const kf_replica *best = p->has_best ? &p->replicas[p->elections[p->best].candidate] : NULL;
    if (best)
        broker_of(j, "best_candidate", best);
    else
        jl_null(j, "best_candidate");
    if (p->has_unclean && best)
        jl_bool(j, "unclean", p->unclean);
    else
        jl_null(j, "unclean");
    jl_bool(j, "diverged", p->diverged);
    jl_uint(j, "copies_disagree", p->disagreements);
    jl_end(j);
}

/* ---- offsets -------------------------------------------------------------------- */

void jl_offsets_row(jlines *j, const kf_offsets_row *r)
{
    const kf_offset_value *v = r->value;
    const kf_offset_view *vw = &r->view;
    jl_begin(j, "offset");
    jl_str(j, "group", v->group);
    jl_str(j, "topic", v->topic);
    jl_int(j, "partition", v->partition);
    jl_int(j, "offset", v->offset);
    jl_opt(j, "leader_epoch", v->leader_epoch >= 0, v->leader_epoch);
    jl_str(j, "metadata", v->metadata);
    jl_int(j, "commit_timestamp", v->commit_timestamp);
    jl_opt(j, "expire_timestamp", v->expire_timestamp >= 0, v->expire_timestamp);
    jl_int(j, "source_partition", v->source_partition);
    jl_int(j, "source_offset", v->source_offset);
    jl_bool(j, "transactional", v->transactional);
    if (vw->has_bounds) {
        jl_int(j, "log_start_offset", vw->log_start_offset);
        jl_int(j, "log_end_offset", vw->log_end_offset);
        jl_opt(j, "lag", vw->has_lag, vw->lag);
        jl_str(j, "out_of_range", kf_out_of_range_name(vw->out_of_range));
    }
    jl_int(j, "value_version", v->value_version);
    if (r->has_topic_id)
        jl_uuid(j, "topic_id", r->topic_id);
    jl_bool(j, "may_be_stale", vw->may_be_stale);
    jl_opt(j, "expires_at", vw->has_expires_at, vw->expires_at);
    jl_bool(j, "expired", vw->has_expires_at && vw->expired);
    jl_end(j);
}

/* ---- txns ----------------------------------------------------------------------- */

static void topic_fields(jlines *j, const kf_partition *p)
{
    jl_str(j, "topic", p->topic[0] ? p->topic : NULL);
    jl_opt(j, "partition", p->partition >= 0, p->partition);
}

void jl_txns_coordinator(jlines *j, const kf_txn_coord_inputs *v)
{
    jl_begin(j, "coordinator");
    jl_str(j, "topic", KF_TXN_STATE_TOPIC);
    jl_arr_open(j, "partitions");
    for (size_t i = 0; i < v->npartitions; i++)
        jl_int(j, NULL, v->partitions[i]);
    jl_arr_close(j);
    jl_uint(j, "transactional_ids", kf_txn_coord_count(v->coord));
    jl_bool(j, "incomplete", v->incomplete);
    jl_end_keep(j);
}

void jl_txns_open(jlines *j, const kf_partition *p, const kf_txn_report *r, bool coord)
{
    const kf_open_txn *x = &r->txn;
    jl_begin(j, "open_transaction");
    topic_fields(j, p);
    jl_int(j, "producer_id", x->producer_id);
    jl_int(j, "producer_epoch", x->producer_epoch);
    jl_int(j, "first_offset", x->first_offset);
    jl_opt(j, "last_offset", x->last_offset >= 0, x->last_offset);
    jl_uint(j, "batches", x->batches);
    jl_uint(j, "records", x->records);
    jl_opt(j, "first_timestamp", x->has_first_timestamp, x->first_timestamp);
    jl_opt(j, "age_ms", r->has_age, r->age_ms);
    jl_bool(j, "hanging", r->hanging);
    jl_opt(j, "last_timestamp", x->has_last_timestamp, x->last_timestamp);
    jl_opt(j, "idle_ms", r->has_idle, r->idle_ms);
    if (coord) {
        const kf_txn_coord_entry *e = r->coordinator;
        jl_str(j, "transactional_id", e ? e->transactional_id : NULL);
        const char *st = e ? kf_txn_state_name(e->state) : NULL;
        if (e && !st)
            jl_int(j, "coordinator_state", e->state);
        else
            jl_str(j, "coordinator_state", st);
        jl_opt(j, "coordinator_producer_epoch", e != NULL, e ? e->producer_epoch : 0);
        jl_bool(j, "marker_missing", r->marker_missing);
    }
    jl_end(j);
}

void jl_txns_partition(jlines *j, const kf_partition *p, const kf_txns_result *res)
{
    jl_begin(j, "partition");
    topic_fields(j, p);
    jl_opt(j, "log_end_offset", res->has_log_end, res->log_end_offset);
    jl_opt(j, "last_stable_offset", res->has_last_stable, res->last_stable_offset);
    jl_uint(j, "open_transactions", res->open_transactions);
    jl_uint(j, "aborted_transactions", res->aborted_transactions);
    jl_uint(j, "committed_transactions", res->committed_transactions);
    jl_uint(j, "hanging_transactions", res->hanging_transactions);
    jl_uint(j, "markers_missing", res->markers_missing);
    jl_uint(j, "txnindex_missing", res->txnindex_missing);
    jl_uint(j, "txnindex_extra", res->txnindex_extra);
    jl_opt(j, "start_offset", res->has_start, res->start_offset);
    jl_str(j, "snapshot", res->snapshot);
    jl_bool(j, "incomplete", res->incomplete);
    jl_end(j);
}

void jl_txns_summary(jlines *j, const kf_txns_totals *t, uint64_t errors, uint64_t warnings)
{
    jl_begin(j, "summary");
    jl_uint(j, "partitions", t->partitions);
    jl_uint(j, "open_transactions", t->open_transactions);
    jl_uint(j, "hanging_transactions", t->hanging_transactions);
    jl_uint(j, "committed_transactions", t->committed_transactions);
    jl_uint(j, "aborted_transactions", t->aborted_transactions);
    jl_uint(j, "markers_missing", t->markers_missing);
    jl_uint(j, "txnindex_problems", t->txnindex_problems);
    jl_uint(j, "incomplete_partitions", t->incomplete_partitions);
    jl_uint(j, "errors", errors);
    jl_uint(j, "warnings", warnings);
    jl_end_keep(j);
}

/* ---- compaction ----------------------------------------------------------------- */

static void pinned_by(jlines *j, const kf_compaction_result *r)
{
    if (!r->pinned) {
        jl_null(j, "pinned_by");
        return;
    }
    const kf_open_txn *t = &r->pinned_by;
    const kf_pinning_txn *w = &r->pinning;
    const char *st = kf_txn_state_name(w->coordinator_state);
    jl_obj_open(j, "pinned_by");
    jl_int(j, "producer_id", t->producer_id);
    jl_int(j, "producer_epoch", t->producer_epoch);
    jl_int(j, "first_offset", t->first_offset);
    jl_opt(j, "first_timestamp", t->has_first_timestamp, t->first_timestamp);
    jl_str(j, "transactional_id", w->transactional_id);
    if (w->transactional_id && !st)
        jl_int(j, "coordinator_state", w->coordinator_state);
    else
        jl_str(j, "coordinator_state", w->transactional_id ? st : NULL);
    jl_opt(j, "age_ms", w->has_age, w->age_ms);
    jl_int(j, "timeout_ms", w->timeout_ms);
    jl_str(j, "timeout_source", w->timeout_from_coordinator ? "coordinator" : "default");
    if (w->has_age)
        jl_bool(j, "hanging", w->hanging);
    else
        jl_null(j, "hanging");
    jl_obj_close(j);
}

void jl_compaction(jlines *j, const kf_compaction_result *r)
{
    const kf_partition *p = r->partition;
    const kf_cleanable *c = &r->cleanable;
    static const char *const by[] = {"not", "internal_topic", "cleanup_policy", "named"};
    jl_begin(j, "compaction");
    jl_str(j, "topic", p->topic[0] ? p->topic : NULL);
    jl_opt(j, "partition", p->partition >= 0, p->partition);
    jl_uint(j, "bytes", r->bytes);
    jl_opt(j, "cleaner_offset", r->has_cleaner_offset, r->cleaner_offset);
    jl_int(j, "first_dirty_offset", c->first_dirty_offset);
    jl_str(j, "first_dirty_reason", kf_dirty_reset_name(c->dirty_reset));
    jl_int(j, "first_uncleanable_offset", c->first_uncleanable_offset);
    jl_str(j, "uncleanable_reason", kf_uncleanable_reason_name(c->reason));
    pinned_by(j, r);
    jl_uint(j, "cleanable_bytes", c->cleanable_bytes);
    if (c->has_ratio)
        jl_double(j, "dirty_ratio", c->dirty_ratio);
    else
        jl_null(j, "dirty_ratio");
    jl_bool(j, "would_clean", c->would_clean);
    const struct {
        const char *key;
        uint64_t v;
    } counts[] = {
        {"keys", r->keys}, {"records", r->records}, {"live_records", r->live_records},
        {"reclaimable_bytes", r->reclaimable_bytes}, {"tombstones", r->tombstones},
        {"keyless_records", r->keyless_records}, {"aborted_records", r->aborted_records},
        {"control_batches", r->control_batches}, {"segments", r->segments},
    };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        jl_uint(j, counts[i].key, counts[i].v);
    jl_int(j, "log_start_offset", r->log_start_offset);
    jl_int(j, "log_end_offset", r->log_end_offset);
    jl_opt(j, "high_watermark", r->has_high_watermark, r->high_watermark);
    jl_int(j, "last_stable_offset", r->last_stable_offset);
    jl_uint(j, "open_transactions", r->open_transactions);
    jl_int(j, "active_segment_offset", c->active_segment_offset);
    jl_opt(j, "min_compaction_lag_offset", c->has_lag_bound, c->lag_bound_offset);
    jl_int(j, "first_uncleanable_segment", c->first_uncleanable_segment);
    jl_uint(j, "clean_bytes", c->clean_bytes);
    jl_uint(j, "total_bytes", c->total_bytes);
    jl_int(j, "compaction_delay_ms", c->compaction_delay_ms);
    jl_str(j, "cleanup_policy", r->cleanup_policy);
    jl_str(j, "cleanup_policy_source", kf_config_source_name(r->cleanup_policy_source));
    jl_double(j, "min_cleanable_ratio", r->min_cleanable_ratio);
    jl_str(j, "min_cleanable_ratio_source", kf_config_source_name(r->min_cleanable_ratio_source));
    jl_int(j, "min_compaction_lag_ms", r->min_compaction_lag_ms);
    jl_str(j, "min_compaction_lag_source", kf_config_source_name(r->min_compaction_lag_source));
    jl_int(j, "max_compaction_lag_ms", r->max_compaction_lag_ms);
    jl_str(j, "max_compaction_lag_source", kf_config_source_name(r->max_compaction_lag_source));
    jl_int(j, "delete_retention_ms", r->delete_retention_ms);
    jl_str(j, "delete_retention_source", kf_config_source_name(r->delete_retention_source));
    jl_str(j, "compacted_because", by[r->compacted_by]);
    jl_bool(j, "incomplete", r->incomplete);
    jl_end(j);
}

/* ---- metadata ------------------------------------------------------------------- */

static void md_ints(jlines *j, const char *key, const kf_md_ints *v) { ints(j, key, true, v->v, v->n); }

static void md_uuids(jlines *j, const char *key, const kf_md_uuids *v)
{
    jl_arr_open(j, key);
    for (uint32_t i = 0; i < v->n; i++)
        jl_uuid(j, NULL, v->v[i]);
    jl_arr_close(j);
}

static void md_listeners(jlines *j, const kf_md_listener *l, uint32_t n)
{
    jl_arr_open(j, "listeners");
    for (uint32_t i = 0; i < n; i++) {
        jl_obj_open(j, NULL);
        jl_str(j, "name", l[i].name);
        jl_str(j, "host", l[i].host);
        jl_int(j, "port", l[i].port);
        jl_int(j, "security_protocol", l[i].security_protocol);
        jl_obj_close(j);
    }
    jl_arr_close(j);
}

static void md_ranges(jlines *j, const kf_md_version_range *r, uint32_t n)
{
    jl_arr_open(j, "features");
    for (uint32_t i = 0; i < n; i++) {
        jl_obj_open(j, NULL);
        jl_str(j, "name", r[i].name);
        jl_int(j, "min_supported_version", r[i].min);
        jl_int(j, "max_supported_version", r[i].max);
        jl_obj_close(j);
    }
    jl_arr_close(j);
}

static void md_cluster(jlines *j, const kf_metadata *m)
{
    const kf_metadata_info *in = kf_metadata_get_info(m);
    jl_begin(j, "cluster");
    jl_str(j, "cluster_id", in->cluster_id);
    jl_str(j, "snapshot", in->snapshot);
    jl_opt(j, "snapshot_offset", in->snapshot != NULL, in->snapshot_offset);
    jl_opt(j, "last_offset", in->has_last_offset, in->last_offset);
    jl_uint(j, "records", in->records);
    jl_opt(j, "leader_epoch", in->has_leader_epoch, in->leader_epoch);
    ints(j, "voters", in->has_voters, in->voters, in->nvoters);
    jl_opt(j, "metadata_version", in->has_metadata_version, in->metadata_version);
    jl_opt(j, "kraft_version", in->kraft_version >= 0, in->kraft_version);
    jl_opt(j, "log_start_offset", in->log_start_offset >= 0, in->log_start_offset);
    jl_bool(j, "open_transaction", in->open_transaction);
    jl_end_keep(j);
}

static void md_objects(jlines *j, const kf_metadata *m)
{
    const kf_md_feature *const *f;
    size_t nf = kf_metadata_features(m, &f);
    for (size_t i = 0; i < nf; i++) {
        jl_begin(j, "feature");
        jl_str(j, "name", f[i]->name);
        jl_int(j, "level", f[i]->level);
        jl_end(j);
    }
    const kf_md_broker *const *b;
    size_t nb = kf_metadata_brokers(m, &b);
    for (size_t i = 0; i < nb; i++) {
        jl_begin(j, "broker");
        jl_int(j, "broker_id", b[i]->id);
        jl_int(j, "broker_epoch", b[i]->epoch);
        jl_uuid(j, "incarnation_id", b[i]->incarnation_id);
        jl_bool(j, "fenced", b[i]->fenced);
        jl_bool(j, "in_controlled_shutdown", b[i]->in_controlled_shutdown);
        jl_str(j, "rack", b[i]->rack);
        md_listeners(j, b[i]->listeners, b[i]->nlisteners);
        md_uuids(j, "log_dirs", &b[i]->log_dirs);
        if (b[i]->has_cordoned)
            md_uuids(j, "cordoned_log_dirs", &b[i]->cordoned_log_dirs);
        else
            jl_null(j, "cordoned_log_dirs");
        jl_bool(j, "is_migrating_zk_broker", b[i]->is_migrating_zk_broker);
        md_ranges(j, b[i]->features, b[i]->nfeatures);
        jl_end(j);
    }
    const kf_md_controller *const *c;
    size_t nc = kf_metadata_controllers(m, &c);
    for (size_t i = 0; i < nc; i++) {
        jl_begin(j, "controller");
        jl_int(j, "controller_id", c[i]->id);
        jl_uuid(j, "incarnation_id", c[i]->incarnation_id);
        md_listeners(j, c[i]->listeners, c[i]->nlisteners);
        jl_bool(j, "zk_migration_ready", c[i]->zk_migration_ready);
        md_ranges(j, c[i]->features, c[i]->nfeatures);
        jl_end(j);
    }
    const kf_md_topic *const *t;
    size_t nt = kf_metadata_topics(m, &t);
    for (size_t i = 0; i < nt; i++) {
        jl_begin(j, "topic");
        jl_str(j, "topic", t[i]->name);
        jl_uuid(j, "topic_id", t[i]->id);
        jl_uint(j, "partitions", t[i]->nparts);
        jl_end(j);
    }
    for (size_t i = 0; i < nt; i++)
        for (uint32_t k = 0; k < t[i]->nparts; k++) {
            const kf_md_partition *p = &t[i]->parts[k];
            jl_begin(j, "partition");
            jl_str(j, "topic", t[i]->name);
            jl_uuid(j, "topic_id", t[i]->id);
            jl_int(j, "partition", p->id);
            md_ints(j, "replicas", &p->replicas);
            md_ints(j, "isr", &p->isr);
            jl_int(j, "leader", p->leader);
            jl_int(j, "leader_epoch", p->leader_epoch);
            jl_int(j, "partition_epoch", p->partition_epoch);
            md_ints(j, "elr", &p->elr);
            md_ints(j, "last_known_elr", &p->last_known_elr);
            md_ints(j, "removing_replicas", &p->removing_replicas);
            md_ints(j, "adding_replicas", &p->adding_replicas);
            if (p->has_directories)
                md_uuids(j, "directories", &p->directories);
            else
                jl_null(j, "directories");
            jl_int(j, "leader_recovery_state", p->leader_recovery_state);
            jl_end(j);
        }
}

/* Configs, producer ids, quotas, ACLs, SCRAM credentials and delegation
 * tokens; secrets redacted as `metadata` without --show-secrets. */
static void md_security(jlines *j, const kf_metadata *m)
{
    const kf_md_config *const *cf;
    size_t ncf = kf_metadata_configs(m, &cf);
    for (size_t i = 0; i < ncf; i++) {
        jl_begin(j, "config");
        const char *rt = kf_config_resource_name(cf[i]->resource_type);
        if (rt)
            jl_str(j, "resource_type", rt);
        else
            jl_int(j, "resource_type", cf[i]->resource_type);
        jl_str(j, "resource_name", cf[i]->resource_name);
        jl_str(j, "name", cf[i]->name);
        bool secret = kf_config_is_secret(cf[i]->name, strlen(cf[i]->name));
        jl_str(j, "value", secret ? RJ_REDACTED : cf[i]->value);
        jl_end(j);
    }
    int64_t next, pe;
    int32_t pb;
    kf_metadata_producer_ids(m, &next, &pb, &pe);
    if (next >= 0) {
        jl_begin(j, "producer_ids");
        jl_int(j, "next_producer_id", next);
        jl_int(j, "broker_id", pb);
        jl_int(j, "broker_epoch", pe);
        jl_end(j);
    }
    const kf_md_quota *const *q;
    size_t nq = kf_metadata_quotas(m, &q);
    for (size_t i = 0; i < nq; i++) {
        jl_begin(j, "client_quota");
        jl_arr_open(j, "entity");
        for (uint32_t k = 0; k < q[i]->nentity; k++) {
            jl_obj_open(j, NULL);
            jl_str(j, "entity_type", q[i]->entity[k].type);
            jl_str(j, "entity_name", q[i]->entity[k].name);
            jl_obj_close(j);
        }
        jl_arr_close(j);
        jl_str(j, "key", q[i]->key);
        jl_double(j, "value", q[i]->value);
        jl_end(j);
    }
    const kf_md_acl *const *a;
    size_t na = kf_metadata_acls(m, &a);
    for (size_t i = 0; i < na; i++) {
        jl_begin(j, "acl");
        jl_uuid(j, "id", a[i]->id);
        jl_int(j, "resource_type", a[i]->resource_type);
        jl_str(j, "resource_name", a[i]->resource_name);
        jl_int(j, "pattern_type", a[i]->pattern_type);
        jl_str(j, "principal", a[i]->principal);
        jl_str(j, "host", a[i]->host);
        jl_int(j, "operation", a[i]->operation);
        jl_int(j, "permission_type", a[i]->permission_type);
        jl_end(j);
    }
    const kf_md_scram *const *s;
    size_t ns = kf_metadata_scram(m, &s);
    for (size_t i = 0; i < ns; i++) {
        jl_begin(j, "scram_credential");
        jl_str(j, "name", s[i]->name);
        jl_int(j, "mechanism", s[i]->mechanism);
        jl_str(j, "salt_b64", RJ_REDACTED);
        jl_str(j, "stored_key_b64", RJ_REDACTED);
        jl_str(j, "server_key_b64", RJ_REDACTED);
        jl_int(j, "iterations", s[i]->iterations);
        jl_end(j);
    }
    const kf_md_token *const *k;
    size_t nk = kf_metadata_tokens(m, &k);
    for (size_t i = 0; i < nk; i++) {
        jl_begin(j, "delegation_token");
        jl_str(j, "token_id", RJ_REDACTED);
        jl_str(j, "owner", k[i]->owner);
        jl_str(j, "requester", k[i]->requester);
        jl_arr_open(j, "renewers");
        for (uint32_t r = 0; r < k[i]->nrenewers; r++)
            jl_str(j, NULL, k[i]->renewers[r]);
        jl_arr_close(j);
        jl_int(j, "issue_timestamp", k[i]->issue_timestamp);
        jl_int(j, "max_timestamp", k[i]->max_timestamp);
        jl_int(j, "expiration_timestamp", k[i]->expiration_timestamp);
        jl_end(j);
    }
}

void jl_metadata(jlines *j, const kf_metadata *m)
{
    md_cluster(j, m);
    md_objects(j, m);
    md_security(j, m);
}

/* ---- remote --------------------------------------------------------------------- */

static void locals(jlines *j, const char *key, const kf_remote_partition *p)
{
    jl_arr_open(j, key);
    for (size_t i = 0; i < p->n_locals; i++) {
        const kf_remote_local *l = &p->locals[i];
        jl_obj_open(j, NULL);
        jl_opt(j, "broker", l->broker >= 0, l->broker);
        jl_int(j, "log_start_offset", l->local_log_start_offset);
        jl_int(j, "log_end_offset", l->log_end_offset);
        jl_opt(j, "log_start_checkpoint", l->has_log_start_checkpoint, l->log_start_offset);
        jl_str(j, "dir", l->dir);
        jl_obj_close(j);
    }
    jl_arr_close(j);
}

void jl_remote_partition(jlines *j, const kf_remote_partition *p)
{
    jl_begin(j, "remote_partition");
    jl_str(j, "topic", p->topic);
    if (p->has_topic_id)
        jl_uuid(j, "topic_id", p->topic_id);
    else
        jl_null(j, "topic_id");
    jl_int(j, "partition", p->partition);
    jl_obj_open(j, "segments");
    for (int s = 0; s < 4; s++)
        jl_uint(j, kf_remote_state_name(s), p->segments[s]);
    jl_obj_close(j);
    jl_opt(j, "remote_start_offset", p->has_remote_range, p->remote_start_offset);
    jl_opt(j, "remote_end_offset", p->has_remote_range, p->remote_end_offset);
    locals(j, "local_log_start_offset", p);
    locals(j, "local_log_end_offset", p);
    jl_arr_open(j, "offsets_in_no_tier");
    for (size_t i = 0; i < p->n_no_tier; i++) {
        jl_obj_open(j, NULL);
        jl_int(j, "from_offset", p->no_tier[i].from_offset);
        jl_int(j, "to_offset", p->no_tier[i].to_offset);
        jl_obj_close(j);
    }
    jl_arr_close(j);
    jl_uint(j, "remote_bytes", p->remote_bytes);
    jl_opt(j, "orphan_bytes", p->has_orphan_bytes, (int64_t)p->orphan_bytes);
    jl_opt(j, "metadata_partition", p->metadata_partition >= 0, p->metadata_partition);
    jl_bool(j, "judged", p->judged);
    jl_opt(j, "log_start_offset", p->n_locals > 0, p->log_start_offset);
    jl_uint(j, "offsets_in_no_tier_count", p->offsets_in_no_tier);
    jl_str(j, "partition_delete_state", kf_remote_partition_state_name(p->partition_delete_state));
    jl_opt(j, "metadata_consumer_stops_at", p->has_metadata_stop, p->metadata_stop_offset);
    jl_obj_open(j, "findings");
    for (int f = 0; f < 5; f++)
        jl_uint(j, kf_remote_finding_name((kf_remote_finding)f), p->counts[f]);
    jl_obj_close(j);
    jl_end(j);
}

/* ---- stats ---------------------------------------------------------------------- */

void jl_stats_group(jlines *j, const kf_stats_group *g, const kf_tbucket *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        jl_begin(j, "bucket");
        jl_str(j, "topic", g->topic[0] ? g->topic : NULL);
        jl_null(j, "partition");
        jl_int(j, "start", b[i].start);
        jl_uint(j, "records", b[i].records);
        jl_uint(j, "bytes", b[i].bytes);
        jl_end(j);
    }
    jl_begin(j, "summary");
    jl_str(j, "topic", g->topic[0] ? g->topic : NULL);
    jl_null(j, "partition");
    jl_uint(j, "records", g->records);
    jl_uint(j, "bytes", g->bytes);
    jl_opt(j, "min_timestamp", g->has_ts, g->min_ts);
    jl_opt(j, "max_timestamp", g->has_ts, g->max_ts);
    jl_opt(j, "max_lateness_ms", g->has_ts, g->max_late);
    jl_uint(j, "late_records", g->late_records);
    jl_uint(j, "records_without_timestamp", g->no_ts);
    jl_uint(j, "control_records", g->control);
    jl_uint(j, "buckets", g->buckets);
    jl_int(j, "bucket_ms", 3600000);
    jl_uint(j, "partitions", g->partitions);
    jl_uint(j, "skipped_batches", g->skipped);
    jl_end(j);
}
