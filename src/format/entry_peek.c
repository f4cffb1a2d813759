/* entry_peek.c: the header of one damaged entry (entry_peek.h). */
#include "format/entry_peek.h"

#include "kfsck/sys/batch.h"

bool kf_peek_entry_last(kf_source *src, uint64_t pos, int64_t expect_first, int64_t *last)
{
    uint8_t h[KF_V2_HEADER_SIZE];
    if (!src || kf_source_pread(src, pos, h, sizeof h) != (int64_t)sizeof h)
        return false;
    kf_batch hb;
    if (kf_batch_parse(h, sizeof h, pos, &hb) != KF_OK || hb.magic != 2)
        return false;
    if (hb.base_offset != expect_first || hb.last_offset_delta < 0 || hb.last_offset_delta > (1 << 20))
        return false;
    *last = hb.last_offset;
    return true;
}
