/* fuzz_kraft_fast.c: fuzz target for the tree-less decoder of the hot KRaft
 * metadata records (src/records/kraft_fast.c) against the generic decoder
 * (kraft_decode.c over kraft_schema.c): on every input the two must agree.
 * When the fast path reads a record, the generic decoder must decode it
 * cleanly (KF_OK) with the same type and version, and its tree turned into
 * the flat form (kf_kraft_flat_from_tree) must hold the same fields; when
 * the generic decoder reads cleanly a type and version the fast path knows
 * (and the record is not over its size limit), the fast path must read it too.
 *
 * Input layout, by byte 0:
 *   0x80 set: a record of a type the fast path reads (byte 0 & 7 picks
 *             topic, partition, config, partition change, broker
 *             registration change, no-op, feature level, fence broker) at
 *             version (byte 0 >> 3) & 3: the header is made here, the rest
 *             of the input is the body;
 *   0x40 set (0x80 clear): the rest is a sequence of records, each a length
 *             byte then the value, checked as above and applied one after
 *             the other to one image (the fast path's form when it reads
 *             them, else the generic tree), which is copied now and then as
 *             an open metadata transaction copies it;
 *   else:     the rest is one record value.
 * Any crash, sanitizer report or abort is a bug.
 *
 * Built as build/fuzz/replay_kraft_fast by `make` (see replay.c), and as a
 * libFuzzer binary by `make fuzz`:
 *   build/fuzz-lf/fuzz_kraft_fast -max_len=4096 tests/fuzz/corpus/kraft_fast
 * The seeds come from tools/gen/gen_kraft_fast.py (kraftfmt.py's encoder).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/md_image.h"
#include "kfsck/kfsck.h"
#include "records/kraft_fast.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same_array(const kf_kraft_array *a, const kf_kraft_array *b, size_t elem)
{
    if (a->present != b->present || a->n != b->n)
        abort();
    if (!a->n)
        return;
    uint8_t *x = malloc(a->n * elem), *y = malloc(a->n * elem);
    if (!x || !y)
        abort();
    if (elem == 16) {
        kf_kraft_uuids_copy(a, (uint8_t(*)[16])x);
        kf_kraft_uuids_copy(b, (uint8_t(*)[16])y);
    } else {
        kf_kraft_ints_copy(a, (int32_t *)(void *)x);
        kf_kraft_ints_copy(b, (int32_t *)(void *)y);
    }
    if (memcmp(x, y, a->n * elem))
        abort();
    free(x);
    free(y);
}

static void same_str(const kf_kraft_str *a, const kf_kraft_str *b)
{
    if ((a->p == NULL) != (b->p == NULL) || a->len != b->len || (a->len && memcmp(a->p, b->p, a->len)))
        abort();
}

static void same_uuid(const uint8_t *a, const uint8_t *b)
{
    if ((a == NULL) != (b == NULL) || (a && memcmp(a, b, 16)))
        abort();
}

/* The fields both decoders read must be the same. */
static void same_flat(const kf_kraft_flat *f, const kf_kraft_flat *g)
{
    if (f->api_key != g->api_key || f->version != g->version)
        abort();
    switch (f->api_key) {
    case KF_MD_TOPIC:
        same_str(&f->u.topic.name, &g->u.topic.name);
        same_uuid(f->u.topic.topic_id, g->u.topic.topic_id);
        break;
    case KF_MD_PARTITION: {
        const kf_kraft_partition *a = &f->u.partition, *b = &g->u.partition;
        if (a->partition_id != b->partition_id || a->leader != b->leader || a->leader_epoch != b->leader_epoch ||
            a->partition_epoch != b->partition_epoch || a->leader_recovery_state != b->leader_recovery_state)
            abort();
        same_uuid(a->topic_id, b->topic_id);
        same_array(&a->replicas, &b->replicas, 4);
        same_array(&a->isr, &b->isr, 4);
        same_array(&a->removing_replicas, &b->removing_replicas, 4);
        same_array(&a->adding_replicas, &b->adding_replicas, 4);
        same_array(&a->directories, &b->directories, 16);
        same_array(&a->elr, &b->elr, 4);
        same_array(&a->last_known_elr, &b->last_known_elr, 4);
        break;
    }
    case KF_MD_CONFIG: {
        const kf_kraft_config *a = &f->u.config, *b = &g->u.config;
        if (a->resource_type != b->resource_type || a->has_names != b->has_names || a->has_value != b->has_value)
            abort();
        same_str(&a->resource_name, &b->resource_name);
        same_str(&a->name, &b->name);
        same_str(&a->value, &b->value);
        break;
    }
    case KF_MD_PARTITION_CHANGE: {
        const kf_kraft_partition_change *a = &f->u.partition_change, *b = &g->u.partition_change;
        if (a->partition_id != b->partition_id || a->leader != b->leader ||
            a->leader_recovery_state != b->leader_recovery_state)
            abort();
        same_uuid(a->topic_id, b->topic_id);
        same_array(&a->isr, &b->isr, 4);
        same_array(&a->replicas, &b->replicas, 4);
        same_array(&a->removing_replicas, &b->removing_replicas, 4);
        same_array(&a->adding_replicas, &b->adding_replicas, 4);
        same_array(&a->directories, &b->directories, 16);
        same_array(&a->elr, &b->elr, 4);
        same_array(&a->last_known_elr, &b->last_known_elr, 4);
        break;
    }
    case KF_MD_BROKER_REGISTRATION_CHANGE: {
        const kf_kraft_broker_change *a = &f->u.broker_change, *b = &g->u.broker_change;
        if (a->broker_id != b->broker_id || a->broker_epoch != b->broker_epoch || a->fenced != b->fenced ||
            a->in_controlled_shutdown != b->in_controlled_shutdown)
            abort();
        same_array(&a->log_dirs, &b->log_dirs, 16);
        same_array(&a->cordoned_log_dirs, &b->cordoned_log_dirs, 16);
        break;
    }
    case KF_MD_NO_OP: break;
    default: abort(); /* the fast path read a type it has no form for */
    }
}

/* The versions the fast path reads of each type, -1: none. */
static int fast_max_version(int16_t key)
{
    switch (key) {
    case KF_MD_TOPIC:
    case KF_MD_CONFIG:
    case KF_MD_NO_OP: return 0;
    case KF_MD_PARTITION:
    case KF_MD_PARTITION_CHANGE: return 2;
    case KF_MD_BROKER_REGISTRATION_CHANGE: return 3;
    default: return -1;
    }
}

/* Both decoders over one value; applied to im when im is not NULL. */
static void one(const uint8_t *v, size_t n, kf_dtree *t, md_image *im)
{
    kf_kraft_flat fast, slow;
    bool is_fast = kf_kraft_fast(v, (int32_t)n, &fast);
    kf_dtree_reset(t);
    kf_kraft_record kr;
    int rc = kf_kraft_decode(KF_KRAFT_METADATA, NULL, -1, v, (int32_t)n, t, &kr);
    bool has_form = rc == KF_OK && kf_kraft_flat_from_tree(t, kr.root, kr.api_key, kr.version, &slow);
    if (is_fast) {
        if (!has_form || fast.api_key != kr.api_key || fast.version != kr.version)
            abort();
        same_flat(&fast, &slow);
    } else if (rc == KF_OK && kr.version >= 0 && kr.version <= fast_max_version(kr.api_key)) {
        abort(); /* a record of a type and version the fast path knows, read cleanly, declined */
    }
    if (!im)
        return;
    char msg[200];
    if (is_fast)
        (void)md_image_apply_flat(im, &fast, msg, sizeof msg);
    else if (rc == KF_OK)
        (void)md_image_apply(im, kr.api_key, kr.version, t, kr.root, false, msg, sizeof msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int16_t types[8] = {KF_MD_TOPIC, KF_MD_PARTITION, KF_MD_CONFIG, KF_MD_PARTITION_CHANGE,
                                     KF_MD_BROKER_REGISTRATION_CHANGE, KF_MD_NO_OP, KF_MD_FEATURE_LEVEL,
                                     KF_MD_FENCE_BROKER};
    if (size < 1 || size > (1u << 20) - 8) /* the fast path declines values over 1 MiB */
        return 0;
    uint8_t mode = data[0];
    data++;
    size--;
    kf_dtree t = {0};
    if (mode & 0x80) {
        uint8_t *v = malloc(size + 3);
        if (!v)
            return 0;
        v[0] = 1;
        v[1] = (uint8_t)types[mode & 7];
        v[2] = (uint8_t)((mode >> 3) & 3);
        if (size)
            memcpy(v + 3, data, size);
        one(v, size + 3, &t, NULL);
        free(v);
    } else if (mode & 0x40) {
        md_image im, copy;
        md_image_init(&im);
        md_image_init(&copy);
        for (unsigned k = 0; size > 0; k++) {
            size_t len = data[0];
            if (len > size - 1)
                len = size - 1;
            /* each value in a buffer of its own, so reads past it are caught */
            uint8_t *v = malloc(len ? len : 1);
            if (!v)
                break;
            memcpy(v, data + 1, len);
            one(v, len, &t, (k & 1) ? &copy : &im);
            free(v);
            data += 1 + len;
            size -= 1 + len;
            if (k % 4 == 3) { /* a transaction opens: the image copied, the copy changed after it */
                md_image_free(&copy);
                if (!md_image_copy(&copy, &im))
                    md_image_init(&copy);
            }
        }
        md_views v;
        if (md_views_build(&v, &im))
            md_views_free(&v);
        md_image_free(&im);
        md_image_free(&copy);
    } else {
        uint8_t *v = malloc(size ? size : 1);
        if (!v)
            return 0;
        if (size)
            memcpy(v, data, size);
        one(v, size, &t, NULL);
        free(v);
    }
    kf_dtree_free(&t);
    return 0;
}
