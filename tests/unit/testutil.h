/* testutil.h: what every cmocka unit test includes. */
#ifndef KFSCK_TESTUTIL_H
#define KFSCK_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kfsck/kfsck.h"

/* Collects reported problems so tests can assert on codes and positions. */
typedef struct problem_log {
    int n;
    char code[64][40];
    uint64_t position[64];
    int64_t offset[64];
    int has_offset[64];
    int severity[64];
    uint64_t length[64];
} problem_log;

static inline void problem_log_fn(void *ctx, const kf_problem *p)
{
    problem_log *l = ctx;
    if (l->n >= 64)
        return;
    snprintf(l->code[l->n], sizeof l->code[0], "%s", p->code);
    l->position[l->n] = p->position;
    l->offset[l->n] = p->offset;
    l->has_offset[l->n] = p->has_offset;
    l->severity[l->n] = p->severity;
    l->length[l->n] = p->has_length ? p->length : 0;
    l->n++;
}

static inline int problem_log_has(const problem_log *l, const char *code)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->code[i], code) == 0)
            return 1;
    return 0;
}


/* ---- hand-built v2 batches (byte layouts from segment-format.md §2) ----- */

static inline void tb_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static inline void tb_put32(uint8_t *p, uint32_t v)
{
    tb_put16(p, (uint16_t)(v >> 16));
    tb_put16(p + 2, (uint16_t)v);
}

static inline void tb_put64(uint8_t *p, uint64_t v)
{
    tb_put32(p, (uint32_t)(v >> 32));
    tb_put32(p + 4, (uint32_t)v);
}

/* A zigzag varint, as Kafka's records write them. Returns its length. */
static inline size_t tb_varint(uint8_t *p, int64_t v)
{
    uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    size_t n = 0;
    while (z >= 0x80) {
        p[n++] = (uint8_t)(z | 0x80);
        z >>= 7;
    }
    p[n++] = (uint8_t)z;
    return n;
}

typedef struct tb_rec {
    const uint8_t *key;
    int32_t klen; /* -1 null */
    const uint8_t *val;
    int32_t vlen; /* -1 null */
} tb_rec;

/* One record at out: attributes 0, timestamp and offset delta i, key,
 * value, no headers; its length varint first. Returns its size. */
static inline size_t tb_record(uint8_t *out, int32_t i, const tb_rec *rec)
{
    uint8_t v[10];
    size_t klen = rec->klen > 0 ? (size_t)rec->klen : 0, vlen = rec->vlen > 0 ? (size_t)rec->vlen : 0;
    size_t body = 1 + 2 * tb_varint(v, i) + tb_varint(v, rec->klen) + klen + tb_varint(v, rec->vlen) + vlen + 1;
    size_t n = tb_varint(out, (int64_t)body);
    out[n++] = 0;
    n += tb_varint(out + n, i);
    n += tb_varint(out + n, i);
    n += tb_varint(out + n, rec->klen);
    if (klen)
        memcpy(out + n, rec->key, klen);
    n += klen;
    n += tb_varint(out + n, rec->vlen);
    if (vlen)
        memcpy(out + n, rec->val, vlen);
    n += vlen;
    out[n++] = 0;
    return n;
}

/* A batch header's fields other than its length, CRC, last offset delta,
 * max timestamp and record count. */
typedef struct tb_head {
    int64_t base;
    int32_t leader_epoch; /* partition leader epoch */
    uint16_t attrs;
    int64_t ts;           /* first timestamp */
    int64_t pid;          /* producer id, -1 none */
    int16_t epoch;        /* producer epoch */
    int32_t seq;          /* base sequence */
} tb_head;

/* The 61-byte v2 header over `size` bytes at out (records already after
 * it); the CRC-32C computed last. */
static inline void tb_header(uint8_t *out, uint32_t size, const tb_head *h, int32_t last_delta, int64_t max_ts,
                             int32_t count)
{
    tb_put64(out, (uint64_t)h->base);
    tb_put32(out + 8, size - 12);
    tb_put32(out + 12, (uint32_t)h->leader_epoch);
    out[16] = 2;
    tb_put16(out + 21, h->attrs);
    tb_put32(out + 23, (uint32_t)last_delta);
    tb_put64(out + 27, (uint64_t)h->ts);
    tb_put64(out + 35, (uint64_t)max_ts);
    tb_put64(out + 43, (uint64_t)h->pid);
    tb_put16(out + 51, (uint16_t)h->epoch);
    tb_put32(out + 53, (uint32_t)h->seq);
    tb_put32(out + 57, (uint32_t)count);
    tb_put32(out + 17, kf_crc32c(0, out + 21, size - 21));
}

/* A v2 batch of n records (offset deltas 0..n-1, timestamps
 * h->ts..h->ts+n-1) at out, which must have room for it. Returns its size. */
static inline uint32_t tb_batch_of(uint8_t *out, const tb_head *h, const tb_rec *rs, int n)
{
    uint8_t *r = out + 61;
    for (int i = 0; i < n; i++)
        r += tb_record(r, i, &rs[i]);
    uint32_t size = (uint32_t)(r - out);
    int32_t last = n > 0 ? n - 1 : 0;
    tb_header(out, size, h, last, h->ts + last, n);
    return size;
}

/* tb_batch_of at partition leader epoch 0, base sequence 0 if there is a
 * producer id, else -1. */
static inline uint32_t tb_batch(uint8_t *out, int64_t base, const tb_rec *rs, int n, uint16_t attrs, int64_t pid,
                                int16_t epoch, int64_t ts)
{
    tb_head h = {base, 0, attrs, ts, pid, epoch, pid >= 0 ? 0 : -1};
    return tb_batch_of(out, &h, rs, n);
}

/* A parsed batch over buf (which must outlive it), its CRC checked. */
static inline kf_batch tb_parse(const uint8_t *buf, uint32_t size)
{
    kf_batch b;
    assert_int_equal(kf_batch_parse(buf, size, 0, &b), KF_OK);
    assert_true(kf_batch_verify_crc(&b));
    return b;
}

/* Reads a whole (small) test file into a malloc'd buffer. */
static inline uint8_t *read_test_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf && n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = (size_t)(n > 0 ? n : 0);
    return buf;
}

/* ---- a scratch directory per test group ---------------------------------- */

/* The group's scratch directory, made by tu_tmpdir_make (cmocka group
 * setup) and removed with everything in it by tu_tmpdir_remove (teardown). */
static char tu_tmpdir[256] __attribute__((unused));

__attribute__((unused)) static int tu_tmpdir_make(const char *name)
{
    snprintf(tu_tmpdir, sizeof tu_tmpdir, "/tmp/kfsck-unit-%s-XXXXXX", name);
    return mkdtemp(tu_tmpdir) ? 0 : -1;
}

__attribute__((unused)) static int tu_tmpdir_remove(void)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tu_tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

#endif
