/* fuzz_replay.c: fuzz target for the group-coordinator replay: the input is
 * read as a __consumer_offsets segment, every intact batch is replayed, the
 * history callback walks each change, and the final tables (as of a time
 * read from the input, for half the inputs) are built. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kfsck/kfsck.h"
#include "kfsck/replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_change(void *ctx, const kf_offset_value *v, bool deleted, int64_t time, int64_t at)
{
    size_t *sink = ctx;
    *sink += strlen(v->group) + strlen(v->topic) + strlen(v->metadata) + (deleted ? 1 : 0) + (size_t)(time & 1) +
             (size_t)(at & 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kf_source *m;
    if (kf_source_memory(&m, data, size) != KF_OK)
        return 0;
    size_t sink = 0;
    kf_replay_opts ro;
    kf_replay_opts_init(&ro);
    ro.max_batch_bytes = (size_t)1 << 20;
    ro.change_fn = on_change;
    ro.change_ctx = &sink;
    if (size >= 8) { /* as-of at a time taken from the input's last bytes, every other input */
        memcpy(&ro.as_of, data + size - 8, 8);
        ro.has_as_of = ro.as_of & 1;
    }
    kf_replay *r;
    if (kf_replay_new(&r, &ro) != KF_OK) {
        kf_source_close(m);
        return 0;
    }
    kf_segment_scan_opts o;
    kf_segment_scan_opts_init(&o);
    o.deep = true;
    kf_segment_iter *it;
    if (kf_segment_iter_open(&it, m, &o) == KF_OK) {
        kf_batch b;
        int part = 0;
        while (kf_segment_iter_next(it, &b, NULL) == 1) {
            kf_replay_partition(r, part++ % 3); /* interleaved partitions */
            kf_replay_batch(r, &b);
        }
        kf_segment_iter_close(it);
    }
    kf_source_close(m);
    kf_replay_finish(r);
    const kf_offset_value **rows;
    size_t n = kf_replay_offsets(r, &rows);
    for (size_t i = 0; i < n; i++)
        sink += (size_t)rows[i]->offset + strlen(rows[i]->metadata);
    const kf_group_record **g;
    n = kf_replay_group_records(r, &g);
    for (size_t i = 0; i < n; i++) {
        kf_dtree t = {0};
        kf_coord_record cr;
        kf_coord_decode(KF_COORD_OFFSETS, g[i]->key, (int32_t)g[i]->key_len, g[i]->value, (int32_t)g[i]->value_len,
                        &t, &cr);
        kf_dtree_free(&t);
    }
    const char *const *dead;
    n = kf_replay_dead_groups(r, &dead);
    for (size_t i = 0; i < n; i++)
        sink += strlen(dead[i]) + (size_t)kf_replay_dead_group_type(r, dead[i]);
    kf_replay_free(r);
    return (int)(sink & 0);
}
