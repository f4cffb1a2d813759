/* kraft_names.h: the KRaft metadata image of the PATHs given to `offsets`
 * and `groups`, so that they can name topics known to them only by id
 * (KIP-848 assignments) and give ids to topics known only by name. */
#ifndef KFSCK_CLI_KRAFT_NAMES_H
#define KFSCK_CLI_KRAFT_NAMES_H

#include <stdint.h>

#include "kfsck/kfsck.h"

/* The image built from the KRaft metadata log among paths (silently: its
 * damage is `metadata`'s and `verify`'s to report), or NULL when there is
 * none. Out of memory exits. Free with kf_metadata_free. */
kf_metadata *kraft_image_of(char *const *paths, int n, uint64_t max_batch_bytes);

#endif
