/* mkbatch.h: hand-built magic-2 batches with what testutil.h's tb_batch
 * does not set (a partition leader epoch, values of any size, producer
 * sequence, transaction markers), for the tests of the partition reader and
 * writer, and small files to read them from. Written from the format
 * (segment-format.md): header, varint records, CRC-32C. */
#ifndef KFSCK_TEST_MKBATCH_H
#define KFSCK_TEST_MKBATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

enum { MK_DATA = -1 };

typedef struct mk_spec {
    int64_t base;
    int32_t count;          /* records (1 for a marker) */
    int32_t epoch;          /* partition leader epoch */
    int64_t ts;             /* first record's timestamp (then +1 each) */
    size_t value_len;       /* bytes of each record's value */
    uint8_t fill;           /* the value bytes */
    int64_t pid;            /* -1: none */
    int16_t pepoch;
    int32_t seq;
    bool txn;
    int ctl;                /* MK_DATA, or KF_CONTROL_ABORT / KF_CONTROL_COMMIT */
    int32_t coord;
} mk_spec;

static inline mk_spec mk_data(int64_t base, int32_t count, int32_t epoch)
{
    mk_spec s = {base, count, epoch, 1700000000000 + base, 8, 'x', -1, -1, -1, false, MK_DATA, 0};
    return s;
}

/* Encode s into out (cap bytes); returns the entry's size (0: no room). */
static inline uint32_t mk_batch(uint8_t *out, size_t cap, const mk_spec *s)
{
    int32_t count = s->ctl != MK_DATA ? 1 : s->count;
    size_t need = 61 + (size_t)count * (s->value_len + 40);
    if (need > cap)
        return 0;
    uint8_t *r = out + 61;
    for (int32_t i = 0; i < count; i++) {
        uint8_t head[40];
        size_t n = 0;
        head[n++] = 0;                          /* attributes */
        n += tb_varint(head + n, i);            /* timestamp delta */
        n += tb_varint(head + n, i);            /* offset delta */
        if (s->ctl == MK_DATA) {
            n += tb_varint(head + n, -1);       /* null key */
            n += tb_varint(head + n, (int64_t)s->value_len);
            size_t len = n + s->value_len + 1;  /* + header count */
            r += tb_varint(r, (int64_t)len);
            memcpy(r, head, n);
            memset(r + n, s->fill, s->value_len);
            r[n + s->value_len] = 0;            /* no headers */
            r += len;
        } else {
            n += tb_varint(head + n, 4);
            tb_put16(head + n, 0);
            tb_put16(head + n + 2, (uint16_t)s->ctl);
            n += 4;
            n += tb_varint(head + n, 6);
            tb_put16(head + n, 0);
            tb_put32(head + n + 2, (uint32_t)s->coord);
            n += 6;
            head[n++] = 0;                      /* no headers */
            r += tb_varint(r, (int64_t)n);
            memcpy(r, head, n);
            r += n;
        }
    }
    uint32_t size = (uint32_t)(r - out);
    tb_put64(out, (uint64_t)s->base);
    tb_put32(out + 8, size - 12);
    tb_put32(out + 12, (uint32_t)s->epoch);
    out[16] = 2;
    uint16_t attrs = (uint16_t)((s->txn ? KF_ATTR_TRANSACTIONAL : 0) | (s->ctl != MK_DATA ? KF_ATTR_CONTROL : 0));
    tb_put16(out + 21, attrs);
    tb_put32(out + 23, (uint32_t)(count - 1));
    tb_put64(out + 27, (uint64_t)s->ts);
    tb_put64(out + 35, (uint64_t)(s->ts + count - 1));
    tb_put64(out + 43, (uint64_t)s->pid);
    tb_put16(out + 51, (uint16_t)s->pepoch);
    tb_put32(out + 53, (uint32_t)s->seq);
    tb_put32(out + 57, (uint32_t)count);
    tb_put32(out + 17, kf_crc32c(0, out + 21, size - 21));
    return size;
}

/* Write len bytes to dir/name; 0 on success. */
static inline int mk_write(const char *dir, const char *name, const void *data, size_t len)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    if (!f)
        return -1;
    size_t w = len ? fwrite(data, 1, len, f) : 0;
    return fclose(f) == 0 && w == len ? 0 : -1;
}

#endif
