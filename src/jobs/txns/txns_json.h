/* txns_json.h: JSON fields that txns' lines share with other jobs' lines
 * (compaction's pinned_by names its transaction as txns does). */
#ifndef KFSCK_JOBS_TXNS_JSON_H
#define KFSCK_JOBS_TXNS_JSON_H

#include "kfsck/sys/json_lines.h"

/* What the coordinator (__transaction_state) says of a transaction:
 * "transactional_id", and "coordinator_state" as Kafka names the state
 * (kf_txn_state_name), as its number when the name is not known; both null
 * when transactional_id is NULL (the coordinator holds no id for it). */
void kf_txn_coordinator_fields(kf_jsonl *j, const char *transactional_id, int state);

#endif
