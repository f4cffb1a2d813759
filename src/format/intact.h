/* intact.h: what makes a batch the streaming reader returned "intact" for
 * the jobs that keep batches (repair --salvage, merge and the partition
 * reader): every check verify makes inside one batch beyond its CRC (its
 * records decode, counts agree, a control batch holds one well-formed
 * record, a sane header), and its offsets continuing the log it is read in
 * (after the previous batch kept, inside its segment's offset range).
 * Internal to the library. */
#ifndef KFSCK_INTACT_H
#define KFSCK_INTACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/sys/batch.h"
#include "kfsck/sys/segment.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The first offset of a batch as verify sees it: the base offset, or for a
 * v0/v1 wrapper whose inner messages were not read, its (last) offset. */
int64_t kf_batch_first_offset(const kf_batch *b);

/* Does b, returned by a kf_segment_iter opened with o->deep, pass every
 * per-batch check verify makes? ck is kf_segment_iter_check's. On failure
 * *code is the first failing check's KF_P_* code and msg (cap bytes) says
 * what it is. */
bool kf_batch_intact(const kf_batch *b, const kf_batch_check *ck, const char **code, char *msg, size_t cap);

/* Do b's offsets continue a log: after prev_last (when has_prev), not below
 * the segment's base offset and within 2^31-1 of it (seg_base from the file
 * name, -1 when unknown)? On failure *code is offset_regression,
 * base_offset_mismatch or offset_overflow and msg says why. */
bool kf_batch_offsets_fit(const kf_batch *b, bool has_prev, int64_t prev_last, int64_t seg_base, const char **code,
                          char *msg, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
