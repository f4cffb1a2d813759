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

/* The 61-byte v2 header over `size` bytes at out (records already after
 * it): base offset, attributes, last offset delta, timestamps, producer,
 * record count; the CRC-32C computed last. */
static inline void tb_header(uint8_t *out, uint32_t size, int64_t base, uint16_t attrs, int32_t last_delta,
                             int64_t ts, int64_t max_ts, int64_t pid, int16_t epoch, int32_t count)
{
    tb_put64(out, (uint64_t)base);
    tb_put32(out + 8, size - 12);
    tb_put32(out + 12, 0);
    out[16] = 2;
    tb_put16(out + 21, attrs);
    tb_put32(out + 23, (uint32_t)last_delta);
    tb_put64(out + 27, (uint64_t)ts);
    tb_put64(out + 35, (uint64_t)max_ts);
    tb_put64(out + 43, (uint64_t)pid);
    tb_put16(out + 51, (uint16_t)epoch);
    tb_put32(out + 53, (uint32_t)(pid >= 0 ? 0 : -1));
    tb_put32(out + 57, (uint32_t)count);
    tb_put32(out + 17, kf_crc32c(0, out + 21, size - 21));
}

/* A v2 batch of n records (offset deltas 0..n-1, timestamps ts..ts+n-1). */
static inline uint32_t tb_batch(uint8_t *out, int64_t base, const tb_rec *rs, int n, uint16_t attrs, int64_t pid,
                                int16_t epoch, int64_t ts)
{
    uint8_t *r = out + 61;
    for (int i = 0; i < n; i++) {
        uint8_t body[512];
        size_t k = 0;
        body[k++] = 0;
        k += tb_varint(body + k, i);
        k += tb_varint(body + k, i);
        k += tb_varint(body + k, rs[i].klen);
        if (rs[i].klen > 0) {
            memcpy(body + k, rs[i].key, (size_t)rs[i].klen);
            k += (size_t)rs[i].klen;
        }
        k += tb_varint(body + k, rs[i].vlen);
        if (rs[i].vlen > 0) {
            memcpy(body + k, rs[i].val, (size_t)rs[i].vlen);
            k += (size_t)rs[i].vlen;
        }
        k += tb_varint(body + k, 0);
        r += tb_varint(r, (int64_t)k);
        memcpy(r, body, k);
        r += k;
    }
    uint32_t size = (uint32_t)(r - out);
    tb_header(out, size, base, attrs, n > 0 ? n - 1 : 0, ts, ts + (n > 0 ? n - 1 : 0), pid, epoch, n);
    return size;
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

#endif
