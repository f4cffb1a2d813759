/* replicas_json.c: replicas' JSON lines (include/kfsck/replicas.h), as
 * `kfsck replicas --json` prints them and the report embeds them: per
 * topic-partition a line per replica, per candidate leader an election
 * line, then the partition's line; the summary. */
#include "kfsck/replicas.h"
#include "kfsck/scan.h"
#include "kfsck/sys/json_lines.h"

/* Starts a line of type about the topic-partition p: every line of a
 * partition names it first. */
static void begin_partition_line(kf_jsonl *j, const char *type, const kf_replica_partition *p)
{
    kf_jsonl_begin(j, type);
    kf_jsonl_fields(j, KF_JS("topic", p->topic), KF_JI("partition", p->partition));
}

/* Which replica r is: its broker (under key; null when not known) and its
 * data dir. */
static void replica_fields(kf_jsonl *j, const char *key, const kf_replica *r)
{
    kf_jsonl_fields(j, KF_JOPT(key, r->has_broker, r->broker), KF_JS("datadir", r->datadir));
}

void kf_replicas_partition_json(kf_jsonl *j, const kf_replica_partition *p)
{
    for (size_t i = 0; i < p->nreplicas; i++) {
        const kf_replica *r = &p->replicas[i];
        begin_partition_line(j, "replica", p);
        replica_fields(j, "broker", r);
        kf_jsonl_fields(j, KF_JS("dir", r->dir), KF_JS("source", r->source),
                        KF_JOPT("log_start_offset", r->has_log_start, r->log_start_offset),
                        KF_JOPT("log_end_offset", r->has_log_end, r->log_end_offset),
                        KF_JOPT("high_watermark", r->has_high_watermark, r->high_watermark));
        kf_leader_epochs_json(j, "leader_epochs", r->leader_epochs, r->n_leader_epochs);
        kf_jsonl_fields(j, KF_JB("epochs_from_batches", r->epochs_from_batches), KF_JB("damaged", r->damaged),
                        KF_JU("errors", r->errors));
        kf_jsonl_end(j);
    }
    for (size_t i = 0; i < p->nelections; i++) {
        const kf_replica_election *e = &p->elections[i];
        const kf_replica *c = &p->replicas[e->candidate];
        begin_partition_line(j, "election", p);
        replica_fields(j, "candidate", c);
        kf_jsonl_arr_open(j, "followers");
        for (size_t k = 0; k < e->nfollowers; k++) {
            const kf_replica_follower *f = &e->followers[k];
            const kf_replica *r = &p->replicas[f->replica];
            kf_jsonl_obj_open(j, NULL);
            replica_fields(j, "broker", r);
            kf_jsonl_fields(j, KF_JI("truncate_to", f->truncate_to), KF_JI("offsets_lost", f->offsets_lost),
                            KF_JI("acknowledged_lost", f->acknowledged_lost), KF_JU("rounds", f->rounds));
            kf_jsonl_obj_close(j);
        }
        kf_jsonl_arr_close(j);
        kf_jsonl_fields(j, KF_JI("offsets_lost", e->offsets_lost), KF_JI("acknowledged_lost", e->acknowledged_lost),
                        KF_JI("leader_log_end", e->leader_log_end),
                        KF_JI("acknowledged_missing", e->acknowledged_missing));
        if (e->has_salvage) {
            kf_jsonl_arr_open(j, "salvage");
            for (size_t k = 0; k < e->nsalvage; k++) {
                const kf_replica_salvage *sv = &e->salvage[k];
                kf_jsonl_obj_open(j, NULL);
                replica_fields(j, "broker", &p->replicas[sv->replica]);
                kf_jsonl_fields(j, KF_JI("from_offset", sv->from_offset), KF_JI("to_offset", sv->to_offset));
                kf_jsonl_obj_close(j);
            }
            kf_jsonl_arr_close(j);
            kf_jsonl_int(j, "acknowledged_missing_after_merge", e->acknowledged_missing_after_merge);
        } else {
            kf_jsonl_fields(j, KF_JNULL("salvage"), KF_JNULL("acknowledged_missing_after_merge"));
        }
        kf_jsonl_end(j);
    }
    begin_partition_line(j, "partition", p);
    kf_jsonl_arr_open(j, "replicas");
    for (size_t i = 0; i < p->nreplicas; i++)
        kf_jsonl_opt_int(j, NULL, p->replicas[i].has_broker, p->replicas[i].broker);
    kf_jsonl_arr_close(j);
    /* leader -1: none, as Kafka keeps it */
    kf_jsonl_fields(j, KF_JOPT("high_watermark", p->has_high_watermark, p->high_watermark),
                    KF_JOPT("leader", p->has_metadata, p->leader));
    kf_jsonl_int32s(j, "isr", p->has_metadata, p->isr, p->nisr);
    kf_jsonl_int32s(j, "elr", p->has_metadata, p->elr, p->nelr);
    kf_jsonl_opt_int(j, "leader_epoch", p->has_metadata, p->leader_epoch);
    const kf_replica *best = p->has_best ? &p->replicas[p->elections[p->best].candidate] : NULL;
    kf_jsonl_opt_int(j, "best_candidate", best && best->has_broker, best ? best->broker : -1);
    if (p->has_unclean && best)
        kf_jsonl_bool(j, "unclean", p->unclean);
    else
        kf_jsonl_null(j, "unclean");
    kf_jsonl_fields(j, KF_JB("diverged", p->diverged), KF_JU("copies_disagree", p->disagreements));
    kf_jsonl_end(j);
}

void kf_replicas_summary_json(kf_jsonl *j, const kf_replicas_totals *t)
{
    kf_jsonl_begin(j, "summary");
    kf_jsonl_fields(j, KF_JU("partitions", t->partitions), KF_JU("at_risk", t->at_risk));
    kf_jsonl_end_summary(j);
}
