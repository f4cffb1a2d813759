/* index_builder.c: the offset/time index builder (index_builder.h), which
 * adds entries by the rule broker recovery rebuilds .index and .timeindex
 * with (LogSegment.recover, docs/formats.md §9.3). */
#include "format/index_builder.h"

#include <string.h>

static void kf_put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void kf_put_be64(uint8_t *p, uint64_t v)
{
    kf_put_be32(p, (uint32_t)(v >> 32));
    kf_put_be32(p + 4, (uint32_t)v);
}

void kf_index_builder_init(kf_index_builder *b, int64_t base, kf_out_file *ix, kf_out_file *tix)
{
    memset(b, 0, sizeof *b);
    b->base = base;
    b->interval = KF_INDEX_INTERVAL_BYTES;
    b->max_ts = -1; /* Kafka's NO_TIMESTAMP */
    b->max_ts_offset = -1;
    b->ix = ix;
    b->tix = tix;
}

static int time_maybe_append(kf_index_builder *b, int64_t ts, int64_t off)
{
    if (b->has_time && off < b->last_time_offset)
        return KF_ERR_CORRUPT;
    int64_t last_ts = b->has_time ? b->last_time_ts : -1;
    if (ts <= last_ts)
        return KF_OK;
    int64_t rel = off - b->base;
    if (rel < 0 || rel > INT32_MAX)
        return KF_ERR_CORRUPT;
    uint8_t e[12];
    kf_put_be64(e, (uint64_t)ts);
    kf_put_be32(e + 8, (uint32_t)rel);
    if (b->tix && kf_out_write(b->tix, e, sizeof e) != KF_OK)
        return KF_ERR_IO;
    b->has_time = true;
    b->last_time_ts = ts;
    b->last_time_offset = off;
    b->time_entries++;
    return KF_OK;
}

int kf_index_builder_add(kf_index_builder *b, uint32_t size, int64_t last_offset, int64_t max_timestamp)
{
    int64_t rel = last_offset - b->base;
    if (rel < 0 || rel > INT32_MAX)
        return KF_ERR_CORRUPT;
    if (max_timestamp > b->max_ts) {
        b->max_ts = max_timestamp;
        b->max_ts_offset = last_offset;
    }
    if (b->valid - b->last_entry_pos > b->interval) {
        if (b->has_index && last_offset <= b->last_index_offset)
            return KF_ERR_CORRUPT;
        if (b->valid > INT32_MAX)
            return KF_ERR_CORRUPT;
        uint8_t e[8];
        kf_put_be32(e, (uint32_t)rel);
        kf_put_be32(e + 4, (uint32_t)b->valid);
        if (b->ix && kf_out_write(b->ix, e, sizeof e) != KF_OK)
            return KF_ERR_IO;
        b->has_index = true;
        b->last_index_offset = last_offset;
        b->index_entries++;
        int rc = time_maybe_append(b, b->max_ts, b->max_ts_offset);
        if (rc != KF_OK)
            return rc;
        b->last_entry_pos = b->valid;
    }
    b->valid += size;
    return KF_OK;
}

int kf_index_builder_finish(kf_index_builder *b) { return time_maybe_append(b, b->max_ts, b->max_ts_offset); }

