/* reader_internal.h: what the segment scan (segment.c) needs from the
 * streaming reader (reader.c) beyond the public iterator. Private. */
#ifndef KFSCK_FORMAT_READER_INTERNAL_H
#define KFSCK_FORMAT_READER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "kfsck/segment.h"

/* kf_segment_iter_open, with the records' check left out when
 * check_records is false: for a caller that decodes every intact batch's
 * records itself (kf_segment_scan with o->records), so the workers need
 * not decompress them too. The iterator still behaves as with o->deep
 * otherwise (v0/v1 messages with wrong lengths are returned, header_ok
 * false); kf_segment_iter_check's record fields stay zero. */
int kf_segment_iter_open_checking(kf_segment_iter **it, kf_source *src, const kf_scan_opts *o, bool check_records);

/* The highest last offset of the batches skipped since the batch last
 * returned whose only damage is their magic byte (the broker keeps them, so
 * later batches' offsets are judged against them). */
bool kf_segment_iter_skipped_last(const kf_segment_iter *it, int64_t *last);

/* Has damage that broker recovery stops at been met yet (valid_bytes known)? */
bool kf_segment_iter_valid_set(const kf_segment_iter *it);

#endif
