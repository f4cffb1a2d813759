/* txns_json.c: txns' JSON lines (include/kfsck/txns.h), as `kfsck txns
 * --json` prints them and the report embeds them: the coordinator's view,
 * a partition's open transactions and the partition, the summary. */
#include "jobs/txns/txns_json.h"
#include "kfsck/sys/json_lines.h"
#include "kfsck/txns.h"

static void topic_fields(kf_jsonl *j, const kf_partition *p)
{
    kf_jsonl_fields(j, KF_JS("topic", p->topic[0] ? p->topic : NULL),
                    KF_JOPT("partition", p->partition >= 0, p->partition));
}

void kf_txns_coordinator_json(kf_jsonl *j, const kf_txn_coord_inputs *v)
{
    kf_jsonl_begin(j, "coordinator");
    kf_jsonl_str(j, "topic", KF_TXN_STATE_TOPIC);
    kf_jsonl_arr_open(j, "partitions");
    for (size_t i = 0; i < v->npartitions; i++)
        kf_jsonl_int(j, NULL, v->partitions[i]);
    kf_jsonl_arr_close(j);
    kf_jsonl_fields(j, KF_JU("transactional_ids", kf_txn_coord_count(v->coord)), KF_JB("incomplete", v->incomplete));
    kf_jsonl_end_summary(j);
}

void kf_txn_coordinator_fields(kf_jsonl *j, const char *transactional_id, int state)
{
    const char *st = transactional_id ? kf_txn_state_name(state) : NULL;
    kf_jsonl_str(j, "transactional_id", transactional_id);
    if (transactional_id && !st)
        kf_jsonl_int(j, "coordinator_state", state);
    else
        kf_jsonl_str(j, "coordinator_state", st);
}

static void open_json(kf_jsonl *j, const kf_partition *p, const kf_txn_report *r, bool coord)
{
    const kf_open_txn *x = &r->txn;
    kf_jsonl_begin(j, "open_transaction");
    topic_fields(j, p);
    kf_jsonl_fields(j, KF_JI("producer_id", x->producer_id), KF_JI("producer_epoch", x->producer_epoch),
                    KF_JI("first_offset", x->first_offset), KF_JOPT("last_offset", x->last_offset >= 0, x->last_offset),
                    KF_JU("batches", x->batches), KF_JU("records", x->records),
                    KF_JOPT("first_timestamp", x->has_first_timestamp, x->first_timestamp),
                    KF_JOPT("age_ms", r->has_age, r->age_ms), KF_JB("hanging", r->hanging),
                    KF_JOPT("last_timestamp", x->has_last_timestamp, x->last_timestamp),
                    KF_JOPT("idle_ms", r->has_idle, r->idle_ms));
    if (coord) {
        const kf_txn_coord_entry *e = r->coordinator;
        kf_txn_coordinator_fields(j, e ? e->transactional_id : NULL, e ? e->state : -1);
        kf_jsonl_fields(j, KF_JOPT("coordinator_producer_epoch", e != NULL, e ? e->producer_epoch : 0),
                        KF_JB("marker_missing", r->marker_missing));
    }
    kf_jsonl_end(j);
}

void kf_txns_partition_json(kf_jsonl *j, const kf_partition *p, const kf_txn_report *open, size_t nopen, bool coord,
                            const kf_txns_result *res)
{
    for (size_t i = 0; i < nopen; i++)
        open_json(j, p, &open[i], coord);
    kf_jsonl_begin(j, "partition");
    topic_fields(j, p);
    kf_jsonl_fields(j, KF_JOPT("log_end_offset", res->has_log_end, res->log_end_offset),
                    KF_JOPT("last_stable_offset", res->has_last_stable, res->last_stable_offset),
                    KF_JU("open_transactions", res->open_transactions),
                    KF_JU("aborted_transactions", res->aborted_transactions),
                    KF_JU("committed_transactions", res->committed_transactions),
                    KF_JU("hanging_transactions", res->hanging_transactions),
                    KF_JU("markers_missing", res->markers_missing), KF_JU("txnindex_missing", res->txnindex_missing),
                    KF_JU("txnindex_extra", res->txnindex_extra),
                    KF_JOPT("start_offset", res->has_start, res->start_offset), KF_JS("snapshot", res->snapshot),
                    KF_JB("incomplete", res->incomplete));
    kf_jsonl_end(j);
}

void kf_txns_summary_json(kf_jsonl *j, const kf_txns_totals *t, uint64_t errors, uint64_t warnings)
{
    kf_jsonl_begin(j, "summary");
    kf_jsonl_fields(j, KF_JU("partitions", t->partitions), KF_JU("open_transactions", t->open_transactions),
                    KF_JU("hanging_transactions", t->hanging_transactions),
                    KF_JU("committed_transactions", t->committed_transactions),
                    KF_JU("aborted_transactions", t->aborted_transactions),
                    KF_JU("markers_missing", t->markers_missing), KF_JU("txnindex_problems", t->txnindex_problems),
                    KF_JU("incomplete_partitions", t->incomplete_partitions), KF_JU("errors", errors),
                    KF_JU("warnings", warnings));
    kf_jsonl_end_summary(j);
}
