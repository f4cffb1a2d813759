/* report_json.c: each command's findings as the JSON lines its `--json`
 * prints (the same types, fields, order and values: docs/kfsck.1), for the
 * page's <script type="application/json" id="kfsck-CMD"> elements, so a
 * script takes them back out as it would read the command's output. The
 * strings are escaped to be safe inside a script element
 * (KF_JSONL_SCRIPT). A command's lines share a byte budget (jlines): the page
 * stays small whatever the inputs, and says how many lines it left out. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "jobs/report/report_internal.h"
#include "kfsck/sys/kraft.h"

/* ---- a command's lines, under its budget -------------------------------------- */

/* The writer's sink: a line is kept while the budget has room for it (a
 * summary line always), else counted. */
static void keep_line(void *ctx, const char *p, size_t n, unsigned how)
{
    jlines *j = ctx;
    if (!(how & KF_JSONL_LINE))
        return;
    j->lines++;
    if (j->w.oom)
        j->out.oom = true;
    if ((how & KF_JSONL_SUMMARY) || rb_room(&j->out, n)) {
        rb_put(&j->out, p, n);
    } else {
        j->omitted++;
        j->omitted_bytes += n;
    }
}

void jl_init(jlines *j, const char *command, size_t budget)
{
    memset(j, 0, sizeof *j);
    j->command = command;
    rb_init(&j->out, budget);
    kf_jsonl_init(&j->w, KF_JSONL_SCRIPT, keep_line, j);
}

void jl_free(jlines *j)
{
    rb_free(&j->out);
    kf_jsonl_free(&j->w);
}

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

static void jl_uuid(jlines *j, const char *key, const uint8_t id[16])
{
    char b[23];
    kf_uuid_to_b64(id, b);
    kf_jsonl_str(&j->w, key, b);
}

void jl_problem(jlines *j, const kf_problem *p, const char *file) { kf_problem_json(&j->w, p, file, NULL, NULL); }

/* ---- shared pieces ------------------------------------------------------------ */

/* ---- predict -------------------------------------------------------------------- */

void jl_predict_datadir(jlines *j, const kf_predict_datadir *d)
{
    kf_jsonl_begin(&j->w, "datadir");
    kf_jsonl_str(&j->w, "datadir", d->datadir);
    kf_jsonl_bool(&j->w, "clean_shutdown", d->clean_shutdown);
    kf_jsonl_opt_int(&j->w, "broker_epoch", d->has_broker_epoch, d->broker_epoch);
    kf_jsonl_uint(&j->w, "partitions", d->partitions);
    kf_jsonl_uint(&j->w, "partitions_to_recover", d->partitions_to_recover);
    kf_jsonl_uint(&j->w, "bytes_to_recover", d->bytes_to_recover);
    kf_jsonl_uint(&j->w, "recovery_threads", d->recovery_threads);
    kf_jsonl_uint(&j->w, "recovery_rate", d->recovery_rate);
    kf_jsonl_double(&j->w, "estimated_recovery_seconds", d->estimated_recovery_seconds);
    kf_jsonl_uint(&j->w, "fatal", d->fatal);
    kf_jsonl_uint(&j->w, "partitions_harmed", d->n_harmed);
    kf_jsonl_str(&j->w, "kraft_snapshot_cut", d->kraft_snapshot_cut);
    kf_jsonl_end_summary(&j->w);
}

void jl_predict_action(jlines *j, const kf_predict_action *a)
{
    kf_jsonl_begin(&j->w, "action");
    kf_jsonl_str(&j->w, "datadir", a->datadir);
    kf_jsonl_str(&j->w, "topic", a->topic);
    kf_jsonl_opt_int(&j->w, "partition", a->topic != NULL, a->partition);
    kf_jsonl_str(&j->w, "action", kf_predict_action_name(a->action));
    kf_jsonl_str(&j->w, "file", a->file);
    kf_jsonl_str(&j->w, "reason", a->reason);
    kf_jsonl_uint(&j->w, "bytes", a->bytes);
    if (a->action == KF_ACT_TRUNCATE_SEGMENT) {
        kf_jsonl_uint(&j->w, "position", a->position);
        kf_jsonl_int(&j->w, "offset", a->offset);
        kf_jsonl_int(&j->w, "offsets_lost", a->offsets_lost);
    }
    kf_jsonl_end(&j->w);
}

void jl_predict_partition(jlines *j, const kf_predict_partition *p)
{
    kf_jsonl_begin(&j->w, "partition");
    kf_jsonl_str(&j->w, "datadir", p->datadir);
    kf_jsonl_str(&j->w, "topic", p->topic);
    kf_jsonl_int(&j->w, "partition", p->partition);
    kf_jsonl_str(&j->w, "dir", p->dir);
    kf_jsonl_str(&j->w, "state", kf_predict_state_name(p->state));
    kf_jsonl_int(&j->w, "recovery_point", p->recovery_point);
    kf_jsonl_int(&j->w, "log_start_offset", p->log_start_offset);
    kf_jsonl_int(&j->w, "log_end_offset_before", p->log_end_offset_before);
    kf_jsonl_int(&j->w, "log_end_offset_after", p->log_end_offset_after);
    kf_jsonl_opt_int(&j->w, "high_watermark", p->has_high_watermark, p->high_watermark);
    kf_jsonl_int(&j->w, "offsets_lost", p->offsets_lost);
    kf_jsonl_int(&j->w, "acknowledged_lost", p->acknowledged_lost);
    kf_jsonl_int(&j->w, "acknowledged_missing", p->acknowledged_missing);
    kf_jsonl_int(&j->w, "offsets_lost_inside", p->offsets_lost_inside);
    kf_jsonl_arr_open(&j->w, "damage_kept");
    for (size_t i = 0; i < p->n_damage_kept; i++) {
        const kf_damage_kept *k = &p->damage_kept[i];
        kf_jsonl_obj_open(&j->w, NULL);
        kf_jsonl_str(&j->w, "file", k->file);
        kf_jsonl_uint(&j->w, "position", k->position);
        kf_jsonl_int(&j->w, "offset", k->offset);
        kf_jsonl_str(&j->w, "code", k->code);
        kf_jsonl_str(&j->w, "error", k->error);
        kf_jsonl_obj_close(&j->w);
    }
    kf_jsonl_arr_close(&j->w);
    if (p->damage_kept_omitted)
        kf_jsonl_uint(&j->w, "damage_kept_omitted", p->damage_kept_omitted);
    kf_jsonl_arr_open(&j->w, "groups_affected");
    for (size_t i = 0; i < p->n_groups_affected; i++) {
        const kf_group_affected *g = &p->groups_affected[i];
        kf_jsonl_obj_open(&j->w, NULL);
        kf_jsonl_str(&j->w, "group", g->group);
        kf_jsonl_str(&j->w, "topic", g->topic);
        kf_jsonl_int(&j->w, "partition", g->partition);
        kf_jsonl_opt_int(&j->w, "offset_now", g->has_offset_now, g->offset_now);
        kf_jsonl_opt_int(&j->w, "offset_after", g->has_offset_after, g->offset_after);
        kf_jsonl_obj_close(&j->w);
    }
    kf_jsonl_arr_close(&j->w);
    kf_jsonl_uint(&j->w, "segments_to_recover", p->segments_to_recover);
    kf_jsonl_uint(&j->w, "bytes_to_recover", p->bytes_to_recover);
    kf_jsonl_str(&j->w, "producer_state", kf_producer_load_name(p->producer_state));
    kf_jsonl_opt_int(&j->w, "producer_snapshot_offset", p->has_producer_snapshot_offset, p->producer_snapshot_offset);
    kf_jsonl_arr_open(&j->w, "retention_deletes");
    for (size_t i = 0; i < p->n_retention_deletes; i++) {
        const kf_retention_delete *r = &p->retention_deletes[i];
        kf_jsonl_obj_open(&j->w, NULL);
        kf_jsonl_str(&j->w, "file", r->file);
        kf_jsonl_int(&j->w, "base_offset", r->base_offset);
        kf_jsonl_str(&j->w, "reason", kf_retention_reason_name(r->reason));
        kf_jsonl_uint(&j->w, "bytes", r->bytes);
        kf_jsonl_obj_close(&j->w);
    }
    kf_jsonl_arr_close(&j->w);
    kf_jsonl_uint(&j->w, "future_timestamps", p->future_timestamps);
    kf_jsonl_str(&j->w, "retention_source", p->retention_source);
    kf_jsonl_end(&j->w);
}

void jl_predict_summary(jlines *j, const kf_predict_summary *s, int64_t acknowledged_missing, uint64_t damage_kept,
                        uint64_t groups_affected, uint64_t harmed)
{
    kf_jsonl_begin(&j->w, "summary");
    kf_jsonl_uint(&j->w, "datadirs", s->datadirs);
    kf_jsonl_uint(&j->w, "partitions", s->partitions);
    kf_jsonl_int(&j->w, "offsets_lost", s->offsets_lost);
    kf_jsonl_int(&j->w, "acknowledged_lost", s->acknowledged_lost);
    kf_jsonl_double(&j->w, "estimated_recovery_seconds", s->estimated_recovery_seconds);
    kf_jsonl_uint(&j->w, "fatal", s->fatal);
    kf_jsonl_int(&j->w, "acknowledged_missing", acknowledged_missing);
    kf_jsonl_uint(&j->w, "damage_kept", damage_kept);
    kf_jsonl_uint(&j->w, "groups_affected", groups_affected);
    kf_jsonl_uint(&j->w, "partitions_harmed", harmed);
    kf_jsonl_end_summary(&j->w);
}

/* ---- replicas ------------------------------------------------------------------- */

static void broker_of(jlines *j, const char *key, const kf_replica *r) { kf_jsonl_opt_int(&j->w, key, r->has_broker, r->broker); }

static void election(jlines *j, const kf_replica_partition *p, const kf_replica_election *e)
{
    const kf_replica *c = &p->replicas[e->candidate];
    kf_jsonl_begin(&j->w, "election");
    kf_jsonl_str(&j->w, "topic", p->topic);
    kf_jsonl_int(&j->w, "partition", p->partition);
    broker_of(j, "candidate", c);
    kf_jsonl_str(&j->w, "datadir", c->datadir);
    kf_jsonl_arr_open(&j->w, "followers");
    for (size_t k = 0; k < e->nfollowers; k++) {
        const kf_replica_follower *f = &e->followers[k];
        const kf_replica *r = &p->replicas[f->replica];
        kf_jsonl_obj_open(&j->w, NULL);
        broker_of(j, "broker", r);
        kf_jsonl_str(&j->w, "datadir", r->datadir);
        kf_jsonl_int(&j->w, "truncate_to", f->truncate_to);
        kf_jsonl_int(&j->w, "offsets_lost", f->offsets_lost);
        kf_jsonl_int(&j->w, "acknowledged_lost", f->acknowledged_lost);
        kf_jsonl_uint(&j->w, "rounds", f->rounds);
        kf_jsonl_obj_close(&j->w);
    }
    kf_jsonl_arr_close(&j->w);
    kf_jsonl_int(&j->w, "offsets_lost", e->offsets_lost);
    kf_jsonl_int(&j->w, "acknowledged_lost", e->acknowledged_lost);
    kf_jsonl_int(&j->w, "leader_log_end", e->leader_log_end);
    kf_jsonl_int(&j->w, "acknowledged_missing", e->acknowledged_missing);
    if (e->has_salvage) {
        kf_jsonl_arr_open(&j->w, "salvage");
        for (size_t k = 0; k < e->nsalvage; k++) {
            const kf_replica_salvage *sv = &e->salvage[k];
            kf_jsonl_obj_open(&j->w, NULL);
            broker_of(j, "broker", &p->replicas[sv->replica]);
            kf_jsonl_str(&j->w, "datadir", p->replicas[sv->replica].datadir);
            kf_jsonl_int(&j->w, "from_offset", sv->from_offset);
            kf_jsonl_int(&j->w, "to_offset", sv->to_offset);
            kf_jsonl_obj_close(&j->w);
        }
        kf_jsonl_arr_close(&j->w);
        kf_jsonl_int(&j->w, "acknowledged_missing_after_merge", e->acknowledged_missing_after_merge);
    } else {
        kf_jsonl_null(&j->w, "salvage");
        kf_jsonl_null(&j->w, "acknowledged_missing_after_merge");
    }
    kf_jsonl_end(&j->w);
}

void jl_replicas_partition(jlines *j, const kf_replica_partition *p)
{
    for (size_t i = 0; i < p->nreplicas; i++) {
        const kf_replica *r = &p->replicas[i];
        kf_jsonl_begin(&j->w, "replica");
        kf_jsonl_str(&j->w, "topic", p->topic);
        kf_jsonl_int(&j->w, "partition", p->partition);
        broker_of(j, "broker", r);
        kf_jsonl_str(&j->w, "datadir", r->datadir);
        kf_jsonl_str(&j->w, "dir", r->dir);
        kf_jsonl_str(&j->w, "source", r->source);
        kf_jsonl_opt_int(&j->w, "log_start_offset", r->has_log_start, r->log_start_offset);
        kf_jsonl_opt_int(&j->w, "log_end_offset", r->has_log_end, r->log_end_offset);
        kf_jsonl_opt_int(&j->w, "high_watermark", r->has_high_watermark, r->high_watermark);
        kf_leader_epochs_json(&j->w, "leader_epochs", r->leader_epochs, r->n_leader_epochs);
        kf_jsonl_bool(&j->w, "epochs_from_batches", r->epochs_from_batches);
        kf_jsonl_bool(&j->w, "damaged", r->damaged);
        kf_jsonl_uint(&j->w, "errors", r->errors);
        kf_jsonl_end(&j->w);
    }
    for (size_t i = 0; i < p->nelections; i++)
        election(j, p, &p->elections[i]);
    kf_jsonl_begin(&j->w, "partition");
    kf_jsonl_str(&j->w, "topic", p->topic);
    kf_jsonl_int(&j->w, "partition", p->partition);
    kf_jsonl_arr_open(&j->w, "replicas");
    for (size_t i = 0; i < p->nreplicas; i++)
        kf_jsonl_opt_int(&j->w, NULL, p->replicas[i].has_broker, p->replicas[i].broker);
    kf_jsonl_arr_close(&j->w);
    kf_jsonl_opt_int(&j->w, "high_watermark", p->has_high_watermark, p->high_watermark);
    kf_jsonl_opt_int(&j->w, "leader", p->has_metadata, p->leader);
    kf_jsonl_int32s(&j->w, "isr", p->has_metadata, p->isr, p->nisr);
    kf_jsonl_int32s(&j->w, "elr", p->has_metadata, p->elr, p->nelr);
    kf_jsonl_opt_int(&j->w, "leader_epoch", p->has_metadata, p->leader_epoch);
    const kf_replica *best = p->has_best ? &p->replicas[p->elections[p->best].candidate] : NULL;
    if (best)
        broker_of(j, "best_candidate", best);
    else
        kf_jsonl_null(&j->w, "best_candidate");
    if (p->has_unclean && best)
        kf_jsonl_bool(&j->w, "unclean", p->unclean);
    else
        kf_jsonl_null(&j->w, "unclean");
    kf_jsonl_bool(&j->w, "diverged", p->diverged);
    kf_jsonl_uint(&j->w, "copies_disagree", p->disagreements);
    kf_jsonl_end(&j->w);
}

/* ---- offsets -------------------------------------------------------------------- */

/* ---- txns ----------------------------------------------------------------------- */

/* ---- compaction ----------------------------------------------------------------- */

static void pinned_by(jlines *j, const kf_compaction_result *r)
{
    if (!r->pinned) {
        kf_jsonl_null(&j->w, "pinned_by");
        return;
    }
    const kf_open_txn *t = &r->pinned_by;
    const kf_pinning_txn *w = &r->pinning;
    const char *st = kf_txn_state_name(w->coordinator_state);
    kf_jsonl_obj_open(&j->w, "pinned_by");
    kf_jsonl_int(&j->w, "producer_id", t->producer_id);
    kf_jsonl_int(&j->w, "producer_epoch", t->producer_epoch);
    kf_jsonl_int(&j->w, "first_offset", t->first_offset);
    kf_jsonl_opt_int(&j->w, "first_timestamp", t->has_first_timestamp, t->first_timestamp);
    kf_jsonl_str(&j->w, "transactional_id", w->transactional_id);
    if (w->transactional_id && !st)
        kf_jsonl_int(&j->w, "coordinator_state", w->coordinator_state);
    else
        kf_jsonl_str(&j->w, "coordinator_state", w->transactional_id ? st : NULL);
    kf_jsonl_opt_int(&j->w, "age_ms", w->has_age, w->age_ms);
    kf_jsonl_int(&j->w, "timeout_ms", w->timeout_ms);
    kf_jsonl_str(&j->w, "timeout_source", w->timeout_from_coordinator ? "coordinator" : "default");
    if (w->has_age)
        kf_jsonl_bool(&j->w, "hanging", w->hanging);
    else
        kf_jsonl_null(&j->w, "hanging");
    kf_jsonl_obj_close(&j->w);
}

void jl_compaction(jlines *j, const kf_compaction_result *r)
{
    const kf_partition *p = r->partition;
    const kf_cleanable *c = &r->cleanable;
    static const char *const by[] = {"not", "internal_topic", "cleanup_policy", "named"};
    kf_jsonl_begin(&j->w, "compaction");
    kf_jsonl_str(&j->w, "topic", p->topic[0] ? p->topic : NULL);
    kf_jsonl_opt_int(&j->w, "partition", p->partition >= 0, p->partition);
    kf_jsonl_uint(&j->w, "bytes", r->bytes);
    kf_jsonl_opt_int(&j->w, "cleaner_offset", r->has_cleaner_offset, r->cleaner_offset);
    kf_jsonl_int(&j->w, "first_dirty_offset", c->first_dirty_offset);
    kf_jsonl_str(&j->w, "first_dirty_reason", kf_dirty_reset_name(c->dirty_reset));
    kf_jsonl_int(&j->w, "first_uncleanable_offset", c->first_uncleanable_offset);
    kf_jsonl_str(&j->w, "uncleanable_reason", kf_uncleanable_reason_name(c->reason));
    pinned_by(j, r);
    kf_jsonl_uint(&j->w, "cleanable_bytes", c->cleanable_bytes);
    if (c->has_ratio)
        kf_jsonl_double(&j->w, "dirty_ratio", c->dirty_ratio);
    else
        kf_jsonl_null(&j->w, "dirty_ratio");
    kf_jsonl_bool(&j->w, "would_clean", c->would_clean);
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
        kf_jsonl_uint(&j->w, counts[i].key, counts[i].v);
    kf_jsonl_int(&j->w, "log_start_offset", r->log_start_offset);
    kf_jsonl_int(&j->w, "log_end_offset", r->log_end_offset);
    kf_jsonl_opt_int(&j->w, "high_watermark", r->has_high_watermark, r->high_watermark);
    kf_jsonl_int(&j->w, "last_stable_offset", r->last_stable_offset);
    kf_jsonl_uint(&j->w, "open_transactions", r->open_transactions);
    kf_jsonl_int(&j->w, "active_segment_offset", c->active_segment_offset);
    kf_jsonl_opt_int(&j->w, "min_compaction_lag_offset", c->has_lag_bound, c->lag_bound_offset);
    kf_jsonl_int(&j->w, "first_uncleanable_segment", c->first_uncleanable_segment);
    kf_jsonl_uint(&j->w, "clean_bytes", c->clean_bytes);
    kf_jsonl_uint(&j->w, "total_bytes", c->total_bytes);
    kf_jsonl_int(&j->w, "compaction_delay_ms", c->compaction_delay_ms);
    kf_jsonl_str(&j->w, "cleanup_policy", r->cleanup_policy);
    kf_jsonl_str(&j->w, "cleanup_policy_source", kf_config_source_name(r->cleanup_policy_source));
    kf_jsonl_double(&j->w, "min_cleanable_ratio", r->min_cleanable_ratio);
    kf_jsonl_str(&j->w, "min_cleanable_ratio_source", kf_config_source_name(r->min_cleanable_ratio_source));
    kf_jsonl_int(&j->w, "min_compaction_lag_ms", r->min_compaction_lag_ms);
    kf_jsonl_str(&j->w, "min_compaction_lag_source", kf_config_source_name(r->min_compaction_lag_source));
    kf_jsonl_int(&j->w, "max_compaction_lag_ms", r->max_compaction_lag_ms);
    kf_jsonl_str(&j->w, "max_compaction_lag_source", kf_config_source_name(r->max_compaction_lag_source));
    kf_jsonl_int(&j->w, "delete_retention_ms", r->delete_retention_ms);
    kf_jsonl_str(&j->w, "delete_retention_source", kf_config_source_name(r->delete_retention_source));
    kf_jsonl_str(&j->w, "compacted_because", by[r->compacted_by]);
    kf_jsonl_bool(&j->w, "incomplete", r->incomplete);
    kf_jsonl_end(&j->w);
}

/* ---- metadata ------------------------------------------------------------------- */

static void md_ints(jlines *j, const char *key, const kf_md_ints *v) { kf_jsonl_int32s(&j->w, key, true, v->v, v->n); }

static void md_uuids(jlines *j, const char *key, const kf_md_uuids *v)
{
    kf_jsonl_arr_open(&j->w, key);
    for (uint32_t i = 0; i < v->n; i++)
        jl_uuid(j, NULL, v->v[i]);
    kf_jsonl_arr_close(&j->w);
}

static void md_listeners(jlines *j, const kf_md_listener *l, uint32_t n)
{
    kf_jsonl_arr_open(&j->w, "listeners");
    for (uint32_t i = 0; i < n; i++) {
        kf_jsonl_obj_open(&j->w, NULL);
        kf_jsonl_str(&j->w, "name", l[i].name);
        kf_jsonl_str(&j->w, "host", l[i].host);
        kf_jsonl_int(&j->w, "port", l[i].port);
        kf_jsonl_int(&j->w, "security_protocol", l[i].security_protocol);
        kf_jsonl_obj_close(&j->w);
    }
    kf_jsonl_arr_close(&j->w);
}

static void md_ranges(jlines *j, const kf_md_version_range *r, uint32_t n)
{
    kf_jsonl_arr_open(&j->w, "features");
    for (uint32_t i = 0; i < n; i++) {
        kf_jsonl_obj_open(&j->w, NULL);
        kf_jsonl_str(&j->w, "name", r[i].name);
        kf_jsonl_int(&j->w, "min_supported_version", r[i].min);
        kf_jsonl_int(&j->w, "max_supported_version", r[i].max);
        kf_jsonl_obj_close(&j->w);
    }
    kf_jsonl_arr_close(&j->w);
}

static void md_cluster(jlines *j, const kf_metadata *m)
{
    const kf_metadata_info *in = kf_metadata_get_info(m);
    kf_jsonl_begin(&j->w, "cluster");
    kf_jsonl_str(&j->w, "cluster_id", in->cluster_id);
    kf_jsonl_str(&j->w, "snapshot", in->snapshot);
    kf_jsonl_opt_int(&j->w, "snapshot_offset", in->snapshot != NULL, in->snapshot_offset);
    kf_jsonl_opt_int(&j->w, "last_offset", in->has_last_offset, in->last_offset);
    kf_jsonl_uint(&j->w, "records", in->records);
    kf_jsonl_opt_int(&j->w, "leader_epoch", in->has_leader_epoch, in->leader_epoch);
    kf_jsonl_int32s(&j->w, "voters", in->has_voters, in->voters, in->nvoters);
    kf_jsonl_opt_int(&j->w, "metadata_version", in->has_metadata_version, in->metadata_version);
    kf_jsonl_opt_int(&j->w, "kraft_version", in->kraft_version >= 0, in->kraft_version);
    kf_jsonl_opt_int(&j->w, "log_start_offset", in->log_start_offset >= 0, in->log_start_offset);
    kf_jsonl_bool(&j->w, "open_transaction", in->open_transaction);
    kf_jsonl_end_summary(&j->w);
}

static void md_objects(jlines *j, const kf_metadata *m)
{
    const kf_md_feature *const *f;
    size_t nf = kf_metadata_features(m, &f);
    for (size_t i = 0; i < nf; i++) {
        kf_jsonl_begin(&j->w, "feature");
        kf_jsonl_str(&j->w, "name", f[i]->name);
        kf_jsonl_int(&j->w, "level", f[i]->level);
        kf_jsonl_end(&j->w);
    }
    const kf_md_broker *const *b;
    size_t nb = kf_metadata_brokers(m, &b);
    for (size_t i = 0; i < nb; i++) {
        kf_jsonl_begin(&j->w, "broker");
        kf_jsonl_int(&j->w, "broker_id", b[i]->id);
        kf_jsonl_int(&j->w, "broker_epoch", b[i]->epoch);
        jl_uuid(j, "incarnation_id", b[i]->incarnation_id);
        kf_jsonl_bool(&j->w, "fenced", b[i]->fenced);
        kf_jsonl_bool(&j->w, "in_controlled_shutdown", b[i]->in_controlled_shutdown);
        kf_jsonl_str(&j->w, "rack", b[i]->rack);
        md_listeners(j, b[i]->listeners, b[i]->nlisteners);
        md_uuids(j, "log_dirs", &b[i]->log_dirs);
        if (b[i]->has_cordoned)
            md_uuids(j, "cordoned_log_dirs", &b[i]->cordoned_log_dirs);
        else
            kf_jsonl_null(&j->w, "cordoned_log_dirs");
        kf_jsonl_bool(&j->w, "is_migrating_zk_broker", b[i]->is_migrating_zk_broker);
        md_ranges(j, b[i]->features, b[i]->nfeatures);
        kf_jsonl_end(&j->w);
    }
    const kf_md_controller *const *c;
    size_t nc = kf_metadata_controllers(m, &c);
    for (size_t i = 0; i < nc; i++) {
        kf_jsonl_begin(&j->w, "controller");
        kf_jsonl_int(&j->w, "controller_id", c[i]->id);
        jl_uuid(j, "incarnation_id", c[i]->incarnation_id);
        md_listeners(j, c[i]->listeners, c[i]->nlisteners);
        kf_jsonl_bool(&j->w, "zk_migration_ready", c[i]->zk_migration_ready);
        md_ranges(j, c[i]->features, c[i]->nfeatures);
        kf_jsonl_end(&j->w);
    }
    const kf_md_topic *const *t;
    size_t nt = kf_metadata_topics(m, &t);
    for (size_t i = 0; i < nt; i++) {
        kf_jsonl_begin(&j->w, "topic");
        kf_jsonl_str(&j->w, "topic", t[i]->name);
        jl_uuid(j, "topic_id", t[i]->id);
        kf_jsonl_uint(&j->w, "partitions", t[i]->nparts);
        kf_jsonl_end(&j->w);
    }
    for (size_t i = 0; i < nt; i++)
        for (uint32_t k = 0; k < t[i]->nparts; k++) {
            const kf_md_partition *p = &t[i]->parts[k];
            kf_jsonl_begin(&j->w, "partition");
            kf_jsonl_str(&j->w, "topic", t[i]->name);
            jl_uuid(j, "topic_id", t[i]->id);
            kf_jsonl_int(&j->w, "partition", p->id);
            md_ints(j, "replicas", &p->replicas);
            md_ints(j, "isr", &p->isr);
            kf_jsonl_int(&j->w, "leader", p->leader);
            kf_jsonl_int(&j->w, "leader_epoch", p->leader_epoch);
            kf_jsonl_int(&j->w, "partition_epoch", p->partition_epoch);
            md_ints(j, "elr", &p->elr);
            md_ints(j, "last_known_elr", &p->last_known_elr);
            md_ints(j, "removing_replicas", &p->removing_replicas);
            md_ints(j, "adding_replicas", &p->adding_replicas);
            if (p->has_directories)
                md_uuids(j, "directories", &p->directories);
            else
                kf_jsonl_null(&j->w, "directories");
            kf_jsonl_int(&j->w, "leader_recovery_state", p->leader_recovery_state);
            kf_jsonl_end(&j->w);
        }
}

/* Configs, producer ids, quotas, ACLs, SCRAM credentials and delegation
 * tokens; secrets redacted as `metadata` without --show-secrets. */
static void md_security(jlines *j, const kf_metadata *m)
{
    const kf_md_config *const *cf;
    size_t ncf = kf_metadata_configs(m, &cf);
    for (size_t i = 0; i < ncf; i++) {
        kf_jsonl_begin(&j->w, "config");
        const char *rt = kf_config_resource_name(cf[i]->resource_type);
        if (rt)
            kf_jsonl_str(&j->w, "resource_type", rt);
        else
            kf_jsonl_int(&j->w, "resource_type", cf[i]->resource_type);
        kf_jsonl_str(&j->w, "resource_name", cf[i]->resource_name);
        kf_jsonl_str(&j->w, "name", cf[i]->name);
        bool secret = kf_config_is_secret(cf[i]->name, strlen(cf[i]->name));
        kf_jsonl_str(&j->w, "value", secret ? RJ_REDACTED : cf[i]->value);
        kf_jsonl_end(&j->w);
    }
    int64_t next, pe;
    int32_t pb;
    kf_metadata_producer_ids(m, &next, &pb, &pe);
    if (next >= 0) {
        kf_jsonl_begin(&j->w, "producer_ids");
        kf_jsonl_int(&j->w, "next_producer_id", next);
        kf_jsonl_int(&j->w, "broker_id", pb);
        kf_jsonl_int(&j->w, "broker_epoch", pe);
        kf_jsonl_end(&j->w);
    }
    const kf_md_quota *const *q;
    size_t nq = kf_metadata_quotas(m, &q);
    for (size_t i = 0; i < nq; i++) {
        kf_jsonl_begin(&j->w, "client_quota");
        kf_jsonl_arr_open(&j->w, "entity");
        for (uint32_t k = 0; k < q[i]->nentity; k++) {
            kf_jsonl_obj_open(&j->w, NULL);
            kf_jsonl_str(&j->w, "entity_type", q[i]->entity[k].type);
            kf_jsonl_str(&j->w, "entity_name", q[i]->entity[k].name);
            kf_jsonl_obj_close(&j->w);
        }
        kf_jsonl_arr_close(&j->w);
        kf_jsonl_str(&j->w, "key", q[i]->key);
        kf_jsonl_double(&j->w, "value", q[i]->value);
        kf_jsonl_end(&j->w);
    }
    const kf_md_acl *const *a;
    size_t na = kf_metadata_acls(m, &a);
    for (size_t i = 0; i < na; i++) {
        kf_jsonl_begin(&j->w, "acl");
        jl_uuid(j, "id", a[i]->id);
        kf_jsonl_int(&j->w, "resource_type", a[i]->resource_type);
        kf_jsonl_str(&j->w, "resource_name", a[i]->resource_name);
        kf_jsonl_int(&j->w, "pattern_type", a[i]->pattern_type);
        kf_jsonl_str(&j->w, "principal", a[i]->principal);
        kf_jsonl_str(&j->w, "host", a[i]->host);
        kf_jsonl_int(&j->w, "operation", a[i]->operation);
        kf_jsonl_int(&j->w, "permission_type", a[i]->permission_type);
        kf_jsonl_end(&j->w);
    }
    const kf_md_scram *const *s;
    size_t ns = kf_metadata_scram(m, &s);
    for (size_t i = 0; i < ns; i++) {
        kf_jsonl_begin(&j->w, "scram_credential");
        kf_jsonl_str(&j->w, "name", s[i]->name);
        kf_jsonl_int(&j->w, "mechanism", s[i]->mechanism);
        kf_jsonl_str(&j->w, "salt_b64", RJ_REDACTED);
        kf_jsonl_str(&j->w, "stored_key_b64", RJ_REDACTED);
        kf_jsonl_str(&j->w, "server_key_b64", RJ_REDACTED);
        kf_jsonl_int(&j->w, "iterations", s[i]->iterations);
        kf_jsonl_end(&j->w);
    }
    const kf_md_token *const *k;
    size_t nk = kf_metadata_tokens(m, &k);
    for (size_t i = 0; i < nk; i++) {
        kf_jsonl_begin(&j->w, "delegation_token");
        kf_jsonl_str(&j->w, "token_id", RJ_REDACTED);
        kf_jsonl_str(&j->w, "owner", k[i]->owner);
        kf_jsonl_str(&j->w, "requester", k[i]->requester);
        kf_jsonl_arr_open(&j->w, "renewers");
        for (uint32_t r = 0; r < k[i]->nrenewers; r++)
            kf_jsonl_str(&j->w, NULL, k[i]->renewers[r]);
        kf_jsonl_arr_close(&j->w);
        kf_jsonl_int(&j->w, "issue_timestamp", k[i]->issue_timestamp);
        kf_jsonl_int(&j->w, "max_timestamp", k[i]->max_timestamp);
        kf_jsonl_int(&j->w, "expiration_timestamp", k[i]->expiration_timestamp);
        kf_jsonl_end(&j->w);
    }
}

void jl_metadata(jlines *j, const kf_metadata *m)
{
    md_cluster(j, m);
    md_objects(j, m);
    md_security(j, m);
}

/* ---- remote --------------------------------------------------------------------- */

/* ---- stats ---------------------------------------------------------------------- */

