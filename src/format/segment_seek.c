/* segment_seek.c: where to begin reading a segment for a given offset, from
 * its offset index (kf_segment_seek, segment.h). The index is a hint that is checked
 * against the log before it is used: a wrong one only costs a read from the
 * segment's start. Kafka looks an offset up the same way
 * (LogSegment.translateOffset: the index's largest entry at or below the
 * offset, then a forward search of the log from its position;
 * storage/.../log/LogSegment.java, OffsetIndex.java; docs/formats.md
 * §5.6). */
#include "bytes/error.h"
#include "kfsck/sys/segment.h"

#include <stdlib.h>
#include <string.h>

#include "bytes/cursor.h"
#include "kfsck/sys/batch.h"
#include "kfsck/sys/index.h"

/* The last entry whose offset is at or below target, by binary search (on
 * an unsorted index this finds some entry at or below target, or none). */
static bool lookup(const kf_index *ix, int64_t target, int64_t *offset, int64_t *position)
{
    uint64_t lo = 0, hi = ix->entries;
    bool found = false;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        int64_t off, pos;
        kf_offset_index_get(ix, mid, &off, &pos);
        if (off <= target) {
            *offset = off;
            *position = pos;
            found = true;
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return found;
}

/* Does an intact batch start at pos whose offsets lie in [base, entry_offset]? */
static int batch_holds_up(kf_source *log, uint64_t pos, int64_t base, int64_t entry_offset, size_t max_batch,
                          bool *ok)
{
    *ok = false;
    uint64_t size = kf_source_size(log);
    uint8_t head[KF_HEADER_UP_TO_MAGIC];
    if (pos >= size || size - pos < sizeof head)
        return KF_OK;
    int64_t got = kf_source_pread(log, pos, head, sizeof head);
    if (got < 0)
        return KF_ERR_IO;
    uint32_t bsize;
    int8_t magic;
    if (got < (int64_t)sizeof head || kf_batch_frame(head, size - pos, &bsize, &magic) != KF_FRAME_OK)
        return KF_OK;
    if (bsize > size - pos || bsize > max_batch)
        return KF_OK;
    uint8_t *buf = malloc(bsize);
    if (!buf)
        return kf_error_nomem();
    got = kf_source_pread(log, pos, buf, bsize);
    kf_batch b;
    if (got < 0) {
        free(buf);
        return KF_ERR_IO;
    }
    if (got == (int64_t)bsize && kf_batch_parse(buf, bsize, pos, &b) == KF_OK && kf_batch_verify_crc(&b)) {
        int64_t first = b.base_offset_known ? b.base_offset : b.last_offset;
        *ok = first >= base && first <= b.last_offset && b.last_offset <= entry_offset;
    }
    free(buf);
    return KF_OK;
}

int kf_segment_seek(kf_source *log, const kf_index *ix, int64_t offset, size_t max_batch_bytes, uint64_t *position,
                    bool *from_index)
{
    *position = 0;
    if (from_index)
        *from_index = false;
    int64_t e_off = 0, e_pos = 0;
    if (!ix || ix->entry_size != 8 || !lookup(ix, offset, &e_off, &e_pos) || e_pos <= 0)
        return KF_OK; /* nothing to seek with, or the entry is the start anyway */
    if (kf_index_read_status(ix) != KF_OK)
        return KF_OK; /* the index file read short: its entries are not all there */
    bool ok;
    int rc = batch_holds_up(log, (uint64_t)e_pos, ix->base_offset, e_off,
                            max_batch_bytes ? max_batch_bytes : KF_DEFAULT_MAX_BATCH_BYTES, &ok);
    if (rc != KF_OK || !ok)
        return rc;
    *position = (uint64_t)e_pos;
    if (from_index)
        *from_index = true;
    return KF_OK;
}
