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
 *             them, after md_image_prefetch has looked at the image for
 *             them; else the generic tree), which is copied now and then as
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

#include "kraft/md_image.h"
#include "kfsck/kfsck.h"
#include "kraft_flat_eq.h"
#include "records/kraft_fast.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
        if (!has_form || fast.api_key != kr.api_key || fast.version != kr.version || !kraft_flat_equal(&fast, &slow))
            abort();
    } else if (rc == KF_OK && kr.version >= 0 && kr.version <= fast_max_version(kr.api_key)) {
        abort(); /* a record of a type and version the fast path knows, read cleanly, declined */
    }
    if (!im)
        return;
    md_why why;
    md_image_prefetch(im, &fast, &is_fast, 1); /* reads the image only */
    if (is_fast)
        (void)md_image_apply_flat(im, &fast, &why);
    else if (rc == KF_OK)
        (void)md_image_apply(im, kr.api_key, kr.version, t, kr.root, false, &why);
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
