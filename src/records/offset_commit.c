/* offset_commit.c: offset commit records without a tree (offset_commit.h).
 * The layouts (docs/formats.md §11.3), from Kafka's OffsetCommitKey /
 * OffsetCommitValue schemas:
 *   key (v0/v1, classic): int16 type, string group, string topic, int32 partition
 *   value v0: int64 offset, string metadata, int64 commit_timestamp
 *   value v1: v0 + int64 expire_timestamp
 *   value v2: as v0
 *   value v3: int64 offset, int32 leader_epoch, string metadata, int64 commit_timestamp
 * (string: int16 length + UTF-8 bytes, never null here). Key type 0 records
 * carry value v0 only (LegacyOffsetCommitValue). Hand-written on purpose:
 * this runs once per commit in a replay of millions, and the generic
 * decoder's tree costs more than the fields themselves; the fuzz target
 * checks it against the generic decoder on every input. */
#include "records/offset_commit.h"

#include <string.h>

#include "bytes/cursor.h"

/* The layouts are fixed but for the two or three strings, so each part is
 * checked once for its whole length: after a string's length is read, the
 * bytes left must be exactly what the rest of the layout takes. */

/* An int16 string length at p (never null here); -1 when negative. */
static int32_t str_len(const uint8_t *p)
{
    int16_t n = (int16_t)kf_be16(p);
    return n < 0 ? -1 : n;
}

bool kf_offset_commit_fast(const uint8_t *key, int32_t key_len, const uint8_t *value, int32_t value_len,
                           kf_offset_commit *out)
{
    /* key: type(2) group_len(2) group topic_len(2) topic partition(4) */
    if (!key || key_len < 10)
        return false;
    size_t left = (size_t)key_len;
    int16_t type = (int16_t)kf_be16(key);
    int32_t gl = str_len(key + 2);
    if ((type != 0 && type != 1) || gl < 0 || left - 4 < (size_t)gl + 6)
        return false;
    const uint8_t *t = key + 4 + gl;
    int32_t tl = str_len(t);
    if (tl < 0 || left - 4 - (size_t)gl - 2 != (size_t)tl + 4)
        return false;
    out->group = key + 4;
    out->group_len = (uint32_t)gl;
    out->topic = t + 2;
    out->topic_len = (uint32_t)tl;
    out->partition = (int32_t)kf_be32(t + 2 + tl);
    /* field by field, not memset: this runs once per commit, and clearing
     * the whole struct (topic id included) cost more than the decode */
    out->tombstone = false;
    out->offset = 0;
    out->metadata = NULL;
    out->metadata_len = 0;
    out->commit_timestamp = 0;
    out->has_topic_id = false;
    memset(out->topic_id, 0, sizeof out->topic_id);
    out->leader_epoch = -1;
    out->expire_timestamp = -1;
    out->value_version = -1;
    if (!value || value_len < 0) {
        out->tombstone = true;
        return true;
    }
    /* value: version(2) offset(8) [leader_epoch(4): v3] metadata_len(2)
     * metadata commit_timestamp(8) [expire_timestamp(8): v1] */
    if (value_len < 2)
        return false;
    int16_t v = (int16_t)kf_be16(value);
    if (v < 0 || v > 3 || (type == 0 && v != 0))
        return false;
    size_t head = 2 + 8 + (v == 3 ? 4 : 0), tail = 8 + (v == 1 ? 8 : 0);
    left = (size_t)value_len;
    if (left < head + 2 + tail)
        return false;
    int32_t ml = str_len(value + head);
    if (ml < 0 || left - head - 2 != (size_t)ml + tail)
        return false;
    out->value_version = v;
    out->offset = (int64_t)kf_be64(value + 2);
    if (v == 3)
        out->leader_epoch = (int32_t)kf_be32(value + 10);
    const uint8_t *m = value + head + 2;
    out->metadata = ml ? m : NULL;
    out->metadata_len = (uint32_t)ml;
    out->commit_timestamp = (int64_t)kf_be64(m + ml);
    if (v == 1)
        out->expire_timestamp = (int64_t)kf_be64(m + ml + 8);
    return true;
}

bool kf_offset_commit_from_tree(const kf_dtree *t, const kf_coord_record *cr, kf_offset_commit *out)
{
    memset(out, 0, sizeof *out);
    const kf_dnode *key = &t->nodes[cr->key_root];
    const kf_dnode *g = kf_dnode_field(t, key, "group");
    const kf_dnode *tp = kf_dnode_field(t, key, "topic");
    if (!g || !tp || g->kind != KF_V_STRING || tp->kind != KF_V_STRING)
        return false;
    out->group = g->p;
    out->group_len = g->len;
    out->topic = tp->p;
    out->topic_len = tp->len;
    out->partition = (int32_t)kf_dnode_int(t, key, "partition", -1);
    out->offset = -1;
    out->leader_epoch = -1;
    out->commit_timestamp = -1;
    out->expire_timestamp = -1;
    out->value_version = cr->value_version;
    if (cr->tombstone) {
        out->tombstone = true;
        return true;
    }
    const kf_dnode *val = &t->nodes[cr->value_root];
    for (uint32_t i = val->first_child; i != KF_DNODE_NONE; i = t->nodes[i].next) {
        const kf_dnode *f = &t->nodes[i];
        if (!f->name)
            continue;
        if (f->kind == KF_V_INT) {
            if (!strcmp(f->name, "offset"))
                out->offset = f->i;
            else if (!strcmp(f->name, "commit_timestamp"))
                out->commit_timestamp = f->i;
            else if (!strcmp(f->name, "leader_epoch"))
                out->leader_epoch = (int32_t)f->i;
            else if (!strcmp(f->name, "expire_timestamp"))
                out->expire_timestamp = f->i;
        } else if (f->kind == KF_V_STRING && !strcmp(f->name, "metadata")) {
            out->metadata = f->len ? f->p : NULL;
            out->metadata_len = f->len;
        } else if (f->kind == KF_V_UUID && !strcmp(f->name, "topic_id")) {
            static const uint8_t zero[16];
            memcpy(out->topic_id, f->p, 16);
            out->has_topic_id = memcmp(f->p, zero, 16) != 0;
        }
    }
    return true;
}
