/* batch_check.h: the records check of a plain (uncompressed) magic-2
 * batch that keeps no record, for the streaming reader's checks of every
 * batch (batch.c; reader_pool.c calls it). */
#ifndef KFSCK_FORMAT_BATCH_CHECK_H
#define KFSCK_FORMAT_BATCH_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "kfsck/sys/batch.h"

/* True, with *count set, when b is an uncompressed magic-2 batch whose
 * records kf_records_begin/kf_records_next would all return with a clean
 * end (the same rules, none of the record fields kept). False when b is
 * anything else or any record is wrong: the caller then iterates to learn
 * what, so this never has to say it. */
bool kf_records_count_plain(const kf_batch *b, int32_t *count);

#endif
