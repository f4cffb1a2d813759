/* replicas_json.c: replicas' JSON lines (include/kfsck/replicas.h), as
 * `kfsck replicas --json` prints them and the report embeds them: per
 * topic-partition a line per replica, per candidate leader an election
 * line, then the partition's line; the summary. */
#include "kfsck/replicas.h"
#include "kfsck/scan.h"
#include "kfsck/sys/json_lines.h"

static void broker_of(kf_jsonl *j, const char *key, const kf_replica *r)
{
    kf_jsonl_opt_int(j, key, r->has_broker, r->broker);
}

void kf_replicas_partition_json(kf_jsonl *j, const kf_replica_partition *p)
{
    for (size_t i = 0; i < p->nreplicas; i++) {
        const kf_replica *r = &p->replicas[i];
        kf_jsonl_begin(j, "replica");
        kf_jsonl_str(j, "topic", p->topic);
        kf_jsonl_int(j, "partition", p->partition);
        broker_of(j, "broker", r);
        kf_jsonl_str(j, "datadir", r->datadir);
        kf_jsonl_str(j, "dir", r->dir);
        kf_jsonl_str(j, "source", r->source);
        kf_jsonl_opt_int(j, "log_start_offset", r->has_log_start, r->log_start_offset);
        kf_jsonl_opt_int(j, "log_end_offset", r->has_log_end, r->log_end_offset);
        kf_jsonl_opt_int(j, "high_watermark", r->has_high_watermark, r->high_watermark);
        kf_leader_epochs_json(j, "leader_epochs", r->leader_epochs, r->n_leader_epochs);
        kf_jsonl_bool(j, "epochs_from_batches", r->epochs_from_batches);
        kf_jsonl_bool(j, "damaged", r->damaged);
        kf_jsonl_uint(j, "errors", r->errors);
        kf_jsonl_end(j);
    }
    for (size_t i = 0; i < p->nelections; i++) {
        const kf_replica_election *e = &p->elections[i];
        const kf_replica *c = &p->replicas[e->candidate];
        kf_jsonl_begin(j, "election");
        kf_jsonl_str(j, "topic", p->topic);
        kf_jsonl_int(j, "partition", p->partition);
        broker_of(j, "candidate", c);
        kf_jsonl_str(j, "datadir", c->datadir);
        kf_jsonl_arr_open(j, "followers");
        for (size_t k = 0; k < e->nfollowers; k++) {
            const kf_replica_follower *f = &e->followers[k];
            const kf_replica *r = &p->replicas[f->replica];
            kf_jsonl_obj_open(j, NULL);
            broker_of(j, "broker", r);
            kf_jsonl_str(j, "datadir", r->datadir);
            kf_jsonl_int(j, "truncate_to", f->truncate_to);
            kf_jsonl_int(j, "offsets_lost", f->offsets_lost);
            kf_jsonl_int(j, "acknowledged_lost", f->acknowledged_lost);
            kf_jsonl_uint(j, "rounds", f->rounds);
            kf_jsonl_obj_close(j);
        }
        kf_jsonl_arr_close(j);
        kf_jsonl_int(j, "offsets_lost", e->offsets_lost);
        kf_jsonl_int(j, "acknowledged_lost", e->acknowledged_lost);
        kf_jsonl_int(j, "leader_log_end", e->leader_log_end);
        kf_jsonl_int(j, "acknowledged_missing", e->acknowledged_missing);
        if (e->has_salvage) {
            kf_jsonl_arr_open(j, "salvage");
            for (size_t k = 0; k < e->nsalvage; k++) {
                const kf_replica_salvage *sv = &e->salvage[k];
                kf_jsonl_obj_open(j, NULL);
                broker_of(j, "broker", &p->replicas[sv->replica]);
                kf_jsonl_str(j, "datadir", p->replicas[sv->replica].datadir);
                kf_jsonl_int(j, "from_offset", sv->from_offset);
                kf_jsonl_int(j, "to_offset", sv->to_offset);
                kf_jsonl_obj_close(j);
            }
            kf_jsonl_arr_close(j);
            kf_jsonl_int(j, "acknowledged_missing_after_merge", e->acknowledged_missing_after_merge);
        } else {
            kf_jsonl_null(j, "salvage");
            kf_jsonl_null(j, "acknowledged_missing_after_merge");
        }
        kf_jsonl_end(j);
    }
    kf_jsonl_begin(j, "partition");
    kf_jsonl_str(j, "topic", p->topic);
    kf_jsonl_int(j, "partition", p->partition);
    kf_jsonl_arr_open(j, "replicas");
    for (size_t i = 0; i < p->nreplicas; i++)
        kf_jsonl_opt_int(j, NULL, p->replicas[i].has_broker, p->replicas[i].broker);
    kf_jsonl_arr_close(j);
    kf_jsonl_opt_int(j, "high_watermark", p->has_high_watermark, p->high_watermark);
    kf_jsonl_opt_int(j, "leader", p->has_metadata, p->leader); /* -1: none, as Kafka keeps it */
    kf_jsonl_int32s(j, "isr", p->has_metadata, p->isr, p->nisr);
    kf_jsonl_int32s(j, "elr", p->has_metadata, p->elr, p->nelr);
    kf_jsonl_opt_int(j, "leader_epoch", p->has_metadata, p->leader_epoch);
    const kf_replica *best = p->has_best ? &p->replicas[p->elections[p->best].candidate] : NULL;
    kf_jsonl_opt_int(j, "best_candidate", best && best->has_broker, best ? best->broker : -1);
    if (p->has_unclean && best)
        kf_jsonl_bool(j, "unclean", p->unclean);
    else
        kf_jsonl_null(j, "unclean");
    kf_jsonl_bool(j, "diverged", p->diverged);
    kf_jsonl_uint(j, "copies_disagree", p->disagreements);
    kf_jsonl_end(j);
}

void kf_replicas_summary_json(kf_jsonl *j, const kf_replicas_totals *t)
{
    kf_jsonl_begin(j, "summary");
    kf_jsonl_uint(j, "partitions", t->partitions);
    kf_jsonl_uint(j, "at_risk", t->at_risk);
    kf_jsonl_end_summary(j);
}
