/* kraft_files.h: KRaft snapshot files (.checkpoint, bootstrap.checkpoint) as
 * a partition the partition reader can read: each file one copy of a log
 * whose offsets start at 0, so several copies of the same snapshot read as
 * one (kraft_check.c, metadata.c). Private to libkfsck. */
#ifndef KFSCK_KRAFT_FILES_H
#define KFSCK_KRAFT_FILES_H

#include <stddef.h>
#include <stdint.h>

#include "kfsck/common.h"
#include "kfsck/partition.h"

typedef struct kraft_files {
    kf_partition p;
    kf_partition_copy *copies;
    int64_t zero;
} kraft_files;

/* paths stay owned by the caller and must outlive f. KF_OK or KF_ERR_NOMEM. */
int kraft_files_init(kraft_files *f, char *const *paths, size_t n);
void kraft_files_free(kraft_files *f);

/* Parse "<20 digits>-<10 digits>.checkpoint" (a .deleted suffix allowed):
 * true with the end offset and epoch. */
bool kraft_snapshot_name(const char *base, int64_t *end_offset, int32_t *epoch);

#endif
