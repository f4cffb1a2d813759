/* reader_internal.h: what the segment scan (segment.c) needs from the
 * streaming reader (reader.c) beyond the public iterator. Private. */
#ifndef KFSCK_FORMAT_READER_INTERNAL_H
#define KFSCK_FORMAT_READER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "kfsck/segment.h"

/* The highest last offset of the batches skipped since the batch last
 * returned whose only damage is their magic byte (the broker keeps them, so
 * later batches' offsets are judged against them). */
bool kf_segment_iter_skipped_last(const kf_segment_iter *it, int64_t *last);

/* Has damage that broker recovery stops at been met yet (valid_bytes known)? */
bool kf_segment_iter_valid_set(const kf_segment_iter *it);

#endif
