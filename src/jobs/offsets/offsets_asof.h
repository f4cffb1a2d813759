/* offsets_asof.h: the committed-offsets table "as of" a time, folded from
 * the replay's change stream (the stream `offsets --history` prints), so
 * that --as-of is always a prefix of --history: the table after the last
 * change, in the order changes took effect, whose time is <= the cut-off.
 * Later changes with a smaller time (a transactional commit takes effect at
 * its marker but carries its earlier commit timestamp) pull every change
 * before them into the prefix.
 *
 * Since which change is the last one is known only at the end, changes
 * after the latest qualifying one are held back per key (the newest value
 * or a deletion); the next qualifying change folds them in. Memory: at most
 * two copies of each distinct key's value, never one per change. Internal
 * to the library (src/jobs/offsets/replay.c). */
#ifndef KFSCK_JOBS_OFFSETS_ASOF_H
#define KFSCK_JOBS_OFFSETS_ASOF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bytes/htab.h"
#include "kfsck/replay.h"

typedef struct offsets_asof {
    int64_t as_of;
    htab table;     /* slot -> kf_offset_value* (own copies): the prefix so far */
    htab held;      /* slot -> kf_offset_value* or a deletion mark: changes after it */
    uint64_t seen;  /* changes seen */
    uint64_t prefix;/* changes in the prefix */
} offsets_asof;

void offsets_asof_init(offsets_asof *a, int64_t as_of);
void offsets_asof_free(offsets_asof *a);

/* One change of the stream, in order: v is the new value, or for a
 * deletion the value removed (deleted true); slot identifies the key.
 * Copies what it keeps. KF_OK or KF_ERR_NOMEM. */
int offsets_asof_change(offsets_asof *a, const uint8_t *slot, uint32_t slen, const kf_offset_value *v, bool deleted,
                        int64_t time);

#endif
