/* offset_expiry.h: internal. The group coordinator's offset-expiration
 * condition of one group (docs/formats.md §11.10), as offsets_view.c asks
 * it of each row: whether the group's offsets can expire at all, from which
 * base time, and which topics it subscribes to (never expired while it has
 * members). */
#ifndef KFSCK_JOBS_OFFSET_EXPIRY_H
#define KFSCK_JOBS_OFFSET_EXPIRY_H

#include <stdbool.h>
#include <stdint.h>

#include "kfsck/groups.h"

typedef enum expiry_base {
    EXPIRY_NEVER,          /* no condition: none of its offsets expires */
    EXPIRY_FROM_COMMIT,    /* retention after each offset's commit time */
    EXPIRY_FROM_EMPTY,     /* retention after the group became empty (state_time), or the commit */
} expiry_base;

typedef struct offset_expiry {
    expiry_base base;
    bool has_state_time;
    int64_t state_time;     /* a classic group's current_state_timestamp */
    char **subscribed;      /* topics never expired (sorted, malloc'd) */
    size_t nsubscribed;
} offset_expiry;

/* The condition of group g (NULL: a group the model does not know, which
 * the coordinator treats as a standalone consumer). Returns false when out
 * of memory. Free with offset_expiry_free. */
bool offset_expiry_of(const kf_group *g, offset_expiry *e);
void offset_expiry_free(offset_expiry *e);

/* When the coordinator's cleanup would delete an offset of the group
 * (commit_ms, expire_ms -1 when the value has none), given the retention:
 * false when never. */
bool offset_expiry_at(const offset_expiry *e, const char *topic, int64_t commit_ms, int64_t expire_ms,
                      int64_t retention_ms, int64_t *at);

#endif
