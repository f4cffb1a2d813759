/* offsets_sort.h: the committed table's order (group, topic, partition,
 * source partition; names in strcmp order) for the replay's result
 * (replay.c). Internal to the library. */
#ifndef KFSCK_JOBS_OFFSETS_SORT_H
#define KFSCK_JOBS_OFFSETS_SORT_H

#include <stddef.h>

#include "kfsck/replay.h"

/* Sorts v[0..n). */
void offsets_sort(const kf_offset_value **v, size_t n);

#endif
