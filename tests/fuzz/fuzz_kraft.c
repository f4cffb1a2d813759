/* fuzz_kraft.c: fuzz target for the KRaft-era decoders and the metadata job
 * (kraft_decode.c over kraft_schema.c / remote_schema.c / share_schema.c,
 * md_image.c, metadata.c, kraft_check.c, quorum_state.c).
 *
 * Input layout: byte 0 modulo 8 picks what is fed —
 *   0: the whole input (byte 0 included, so segment files replayed from
 *      fixtures/ arrive intact) as the one segment of a __cluster_metadata-0
 *      directory and as a KRaft snapshot in it: the metadata job and the
 *      directory checks run over them (files in a temporary directory);
 *   1: the rest as a metadata record value;
 *   2: the rest as a __remote_log_metadata record value;
 *   3: byte 1 is a control type, the rest a control record value;
 *   4: a __share_group_state record: byte 1 the key length (0xff: null key),
 *      then the key, the rest the value;
 *   5: the rest as a quorum-state file;
 *   6: the rest as a sequence of metadata record values, each a byte of
 *      length then the bytes, applied one after the other to one image,
 *      copied now and then as an open metadata transaction copies it;
 *   7: the rest as a metadata record value with a key, and as a config name.
 * Each decoded tree is walked in full (links inside the arena, child counts
 * matching, value bytes inside the input). Any crash, sanitizer report or
 * abort is a bug.
 *
 * Built as build/fuzz/replay_kraft by `make` (see replay.c), and as a
 * libFuzzer binary by `make fuzz`:
 *   build/fuzz-lf/fuzz_kraft -max_len=8192 tests/fuzz/corpus/kraft
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kraft/md_image.h"
#include "kfsck/kfsck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static void walk(const kf_dtree *t, uint32_t i, const uint8_t *lo, const uint8_t *hi, int depth)
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
        walk(t, c, lo, hi, depth + 1);
    }
    if (k != n->n_children)
        abort();
    if ((n->kind == KF_V_STRING || n->kind == KF_V_BYTES || n->kind == KF_V_UUID) && n->len) {
        if (n->p < lo || n->p + n->len > hi)
            abort();
        sink += n->p[0] + n->p[n->len - 1];
    }
    sink += (size_t)n->i + (n->name ? strlen(n->name) : 0);
}

static void problem_sink(void *ctx, const kf_problem *p)
{
    (void)ctx;
    sink += strlen(p->code) + strlen(p->message);
}

/* ---- mode 0: files ------------------------------------------------------------------ */

static char dir[64], mdir[96];

static void cleanup(void)
{
    char p[160];
    snprintf(p, sizeof p, "%s/00000000000000000000.log", mdir);
    unlink(p);
    snprintf(p, sizeof p, "%s/00000000000000000002-0000000001.checkpoint", mdir);
    unlink(p);
    rmdir(mdir);
    rmdir(dir);
}

static int write_file(const char *name, const uint8_t *data, size_t size)
{
    char p[160];
    snprintf(p, sizeof p, "%s/%s", mdir, name);
    FILE *f = fopen(p, "wb");
    if (!f)
        return -1;
    size_t w = size ? fwrite(data, 1, size, f) : 0;
    fclose(f);
    return w == size ? 0 : -1;
}

static void files(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/kfsck-fuzz-kraft-XXXXXX");
        if (!mkdtemp(dir)) {
            dir[0] = 0;
            return;
        }
        snprintf(mdir, sizeof mdir, "%s/__cluster_metadata-0", dir);
        if (mkdir(mdir, 0700) != 0)
            return;
        atexit(cleanup);
    }
    if (write_file("00000000000000000000.log", data, size) || write_file("00000000000000000002-0000000001.checkpoint", data, size))
        return;
    kf_kraft_inputs ki;
    char *paths[1] = {mdir};
    if (kf_kraft_inputs_collect(&ki, paths, 1, NULL, NULL) == KF_OK) {
        kf_metadata_opts o;
        kf_metadata_opts_init(&o);
        o.max_batch_bytes = 1 << 20;
        o.problem_fn = problem_sink;
        for (int as_of = 0; as_of < 2; as_of++) {
            o.has_as_of = as_of;
            o.as_of_offset = 1;
            kf_metadata *m = NULL;
            if (kf_metadata_build(&m, &ki, &o) == KF_OK && m) {
                const kf_md_topic *const *t;
                size_t n = kf_metadata_topics(m, &t);
                for (size_t i = 0; i < n; i++)
                    sink += t[i]->nparts + (kf_metadata_topic_by_id(m, t[i]->id) == t[i]);
                const kf_md_config *const *c;
                sink += kf_metadata_configs(m, &c) + kf_metadata_get_info(m)->records;
            }
            kf_metadata_free(m);
        }
    }
    kf_kraft_inputs_free(&ki);
    kf_kraft_check_dir(mdir, 1 << 20, KF_KCHECK_ALL, problem_sink, NULL);
}

/* ---- mode 6: a sequence applied to one image ----------------------------------------- */

static void sequence(const uint8_t *data, size_t size)
{
    md_image im, saved;
    md_image_init(&im);
    md_image_init(&saved);
    kf_dtree t = {0};
    t.max_nodes = 4096;
    size_t pos = 0;
    int k = 0;
    while (pos < size) {
        size_t n = data[pos++];
        if (n > size - pos)
            n = size - pos;
        kf_dtree_reset(&t);
        kf_kraft_record kr;
        if (kf_kraft_decode(KF_KRAFT_METADATA, NULL, -1, data + pos, (int32_t)n, &t, &kr) == KF_OK) {
            md_why why;
            md_apply a = md_image_apply(&im, kr.api_key, kr.version, &t, kr.root, k & 1, &why);
            sink += (size_t)a + strlen(why.msg) + strlen(why.thrown);
        }
        pos += n;
        if (++k % 4 == 0) { /* begin a "transaction": keep a copy, later roll back to it */
            md_image_free(&saved);
            if (!md_image_copy(&saved, &im))
                abort();
        } else if (k % 7 == 0) {
            md_image_free(&im);
            im = saved;
            md_image_init(&saved);
        }
    }
    md_views v;
    if (md_views_build(&v, &im)) {
        sink += v.topics.n + v.configs.n + v.quotas.n + v.brokers.n;
        md_views_free(&v);
    }
    md_image_free(&saved);
    md_image_free(&im);
    kf_dtree_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int mode = data[0] % 8;
    if (mode == 0) {
        files(data, size);
        return 0;
    }
    const uint8_t *p = data + 1;
    size_t n = size - 1;
    kf_dtree t = {0};
    t.max_nodes = 4096;
    kf_kraft_record kr;
    int rc;
    switch (mode) {
    case 1:
    case 2:
        rc = kf_kraft_decode(mode == 1 ? KF_KRAFT_METADATA : KF_KRAFT_REMOTE, NULL, -1, n ? p : NULL, (int32_t)n, &t,
                             &kr);
        if (rc == KF_OK && (!kr.ok || kr.root == KF_DNODE_NONE))
            abort();
        walk(&t, kr.root, p, p + n, 0);
        sink += (size_t)rc + strlen(kr.err);
        break;
    case 3:
        if (n < 1)
            break;
        rc = kf_kraft_control_decode((int16_t)p[0], p + 1, (int32_t)(n - 1), &t, &kr);
        walk(&t, kr.root, p, p + n, 0);
        sink += (size_t)rc;
        break;
    case 4: {
        if (n < 1)
            break;
        uint8_t klen = p[0];
        p++;
        n--;
        const uint8_t *key = NULL;
        int32_t key_len = -1;
        if (klen != 0xff) {
            if (klen > n)
                klen = (uint8_t)n;
            key = p;
            key_len = klen;
            p += klen;
            n -= klen;
        }
        kf_coord_record r;
        rc = kf_coord_decode(KF_COORD_SHARE, key, key_len, p, (int32_t)n, &t, &r);
        walk(&t, r.key_root, data, data + size, 0);
        walk(&t, r.value_root, data, data + size, 0);
        sink += (size_t)rc + (r.value_layout ? strlen(r.value_layout) : 0);
        break;
    }
    case 5: {
        kf_quorum_state q;
        rc = kf_quorum_state_parse(p, n, &q);
        sink += (size_t)rc + q.nvoters + (rc != KF_OK ? strlen(kf_error_last()->message) : 0);
        break;
    }
    case 6: sequence(p, n); break;
    case 7:
        rc = kf_kraft_decode(KF_KRAFT_METADATA, p, n > 4 ? 4 : (int32_t)n, p, (int32_t)n, &t, &kr);
        walk(&t, kr.root, p, p + n, 0);
        sink += (size_t)rc + kf_config_is_secret((const char *)p, n);
        break;
    }
    kf_dtree_free(&t);
    return 0;
}
