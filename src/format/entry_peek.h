/* entry_peek.h: a look at the header of one damaged entry, outside the
 * batch stream: how far the offsets lost at a torn or broken entry reach.
 * Private to libkfsck (the partition reader and repair). */
#ifndef KFSCK_FORMAT_ENTRY_PEEK_H
#define KFSCK_FORMAT_ENTRY_PEEK_H

#include <stdbool.h>
#include <stdint.h>

#include "kfsck/sys/file.h"

/* When the entry at pos in src has a readable v2 header whose base offset is
 * expect_first (it continues the log) and whose last offset delta is
 * plausible (0..2^20), its last offset. Reads 61 bytes. */
bool kf_peek_entry_last(kf_source *src, uint64_t pos, int64_t expect_first, int64_t *last);

#endif
