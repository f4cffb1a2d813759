/* offsets_asof.h: the committed-offsets table "as of" a time, folded from
 * the replay's change stream (the stream `offsets --history` prints).
 *
 * The rule (docs/formats.md §11.12): every change carries its time (a
 * commit its commit_timestamp, transactional ones too; a deletion its
 * tombstone batch's max timestamp), and the table as of MS is every change
 * whose time is <= MS, applied in the order the changes took effect. A
 * change after MS is not part of it, wherever it falls in the stream, so
 * the table never holds a commit_timestamp after MS. Every key lives in one
 * __consumer_offsets partition and its changes come in that partition's
 * log order, so how the partitions are interleaved on the one time line
 * (offsets_topic.c) cannot move a change across MS: the table is the same
 * over a data dir, over one partition dir, or over several copies.
 *
 * Memory: one copy of each distinct key's value. Internal to the library
 * (src/jobs/offsets/replay.c). */
#ifndef KFSCK_JOBS_OFFSETS_ASOF_H
#define KFSCK_JOBS_OFFSETS_ASOF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bytes/htab.h"
#include "kfsck/replay.h"

typedef struct offsets_asof {
    int64_t as_of;
    htab table;     /* slot -> kf_offset_value* (own copies) */
} offsets_asof;

void offsets_asof_init(offsets_asof *a, int64_t as_of);
void offsets_asof_free(offsets_asof *a);

/* Whether a change of this time is part of the table (time <= as_of). */
static inline bool offsets_asof_takes(const offsets_asof *a, int64_t time) { return time <= a->as_of; }

/* One change of the stream, in order, that offsets_asof_takes: v is the
 * new value, or for a deletion the value removed (deleted true); slot
 * identifies the key. Copies what it keeps. KF_OK or KF_ERR_NOMEM. */
int offsets_asof_change(offsets_asof *a, const uint8_t *slot, uint32_t slen, const kf_offset_value *v,
                        bool deleted);

#endif
