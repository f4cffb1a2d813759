/* fuzz_coord.c: fuzz target for the coordinator-record decoder
 * (src/records/coord_decode.c over the table in src/records/coord_schema.c).
 *
 * Input layout: byte 0 picks what is fed —
 *   bits 0-1: 0 = a __consumer_offsets record, 1 = a __transaction_state
 *             record, 2 = consumer-protocol subscription bytes,
 *             3 = consumer-protocol assignment bytes;
 *   bit 2:    record with a null value (tombstone);
 *   bit 3:    a small node cap (max_nodes 40), to hit the cap;
 * for records, byte 1 is the key length (0xff = null key) and the key is the
 * bytes after it, the value the rest. Each decoded tree is walked in full
 * (links must stay inside the arena, child counts must match) and the hash
 * functions are run on the key. Offset commits the replay decodes without a
 * tree must decode to the same fields through the generic decoder. Any
 * crash, sanitizer report or abort is a bug.
 *
 * Built as build/fuzz/replay_coord by `make` (see replay.c), and as a
 * libFuzzer binary by `make fuzz`:
 *   build/fuzz-lf/fuzz_coord -max_len=4096 tests/fuzz/corpus/coord
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kfsck/kfsck.h"
#include "records/offset_commit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static void walk(const kf_dtree *t, uint32_t i, int depth)
{
    if (i == KF_DNODE_NONE)
        return;
    if (i >= t->n || depth > 64)
        abort();
    const kf_dnode *n = &t->nodes[i];
    uint32_t k = 0;
    for (uint32_t c = n->first_child; c != KF_DNODE_NONE; c = t->nodes[c].next) {
        if (c >= t->n || ++k > t->n)
            abort();
        walk(t, c, depth + 1);
    }
    if (k != n->n_children)
        abort();
    if ((n->kind == KF_V_STRING || n->kind == KF_V_BYTES || n->kind == KF_V_UUID) && n->len)
        sink += n->p[0] + n->p[n->len - 1];
    sink += (size_t)n->i + (n->name ? strlen(n->name) : 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t mode = data[0];
    data++;
    size--;
    kf_dtree t = { 0 };
    if (mode & 8)
        t.max_nodes = 40;
    int kind = mode & 3;
    if (kind >= 2) {
        uint32_t root = KF_DNODE_NONE;
        int rc = kind == 2 ? kf_consumer_subscription_decode(size ? data : NULL, size, &t, &root)
                           : kf_consumer_assignment_decode(size ? data : NULL, size, &t, &root);
        sink += (size_t)rc;
        walk(&t, root, 0);
        kf_dtree_free(&t);
        return 0;
    }
    if (size < 1)
        return 0;
    uint8_t klen = data[0];
    data++;
    size--;
    const uint8_t *key = NULL;
    int32_t key_len = -1;
    if (klen != 0xff) {
        if (klen > size)
            klen = (uint8_t)size;
        key = data;
        key_len = klen;
        data += klen;
        size -= klen;
    }
    const uint8_t *value = (mode & 4) ? NULL : data;
    int32_t value_len = (mode & 4) ? -1 : (int32_t)size;
    kf_coord_record r;
    int rc = kf_coord_decode(kind == 0 ? KF_COORD_OFFSETS : KF_COORD_TXN, key, key_len, value, value_len, &t, &r);
    sink += (size_t)rc + strlen(r.err) + r.err_pos;
    if (rc == KF_OK && (!r.key_ok || r.err[0]))
        abort();
    if (r.value_ok && r.value_partial)
        abort();
    walk(&t, r.key_root, 0);
    walk(&t, r.value_root, 0);
    /* the replay's tree-less decoder of offset commits must agree with the
     * generic decoder on every record it accepts */
    kf_offset_commit fast, slow;
    if (kind == 0 && !(mode & 8) && kf_offset_commit_fast(key, key_len, value, value_len, &fast)) {
        if (rc != KF_OK || !r.key_ok || !(r.tombstone || r.value_ok) || !kf_offset_commit_from_tree(&t, &r, &slow))
            abort();
        if (fast.tombstone != slow.tombstone || fast.partition != slow.partition ||
            fast.group_len != slow.group_len || memcmp(fast.group, slow.group, fast.group_len) ||
            fast.topic_len != slow.topic_len || memcmp(fast.topic, slow.topic, fast.topic_len))
            abort();
        if (!fast.tombstone &&
            (fast.value_version != slow.value_version || fast.offset != slow.offset ||
             fast.leader_epoch != slow.leader_epoch || fast.commit_timestamp != slow.commit_timestamp ||
             fast.expire_timestamp != slow.expire_timestamp || fast.metadata_len != slow.metadata_len ||
             (fast.metadata_len && memcmp(fast.metadata, slow.metadata, fast.metadata_len)) ||
             fast.has_topic_id != slow.has_topic_id))
            abort();
    }
    /* reuse the arena for a second record, as callers do */
    kf_dtree_reset(&t);
    rc = kf_coord_decode(kind == 0 ? KF_COORD_OFFSETS : KF_COORD_TXN, key, key_len, value, value_len, &t, &r);
    walk(&t, r.value_root, 0);
    if (key) {
        sink += (size_t)kf_java_string_hash(key, (size_t)key_len);
        sink += (size_t)kf_coordinator_partition(key, (size_t)key_len, 50);
    }
    kf_dtree_free(&t);
    return 0;
}
