/* mkbatch.h: hand-built magic-2 batches described by a spec (partition
 * leader epoch, values of any size, producer sequence, transaction markers),
 * for the tests of the partition reader and writer and of the producer
 * state, and small files to read them from. Built on testutil.h's
 * tb_record and tb_header (segment-format.md: header, varint records,
 * CRC-32C). */
#ifndef KFSCK_TEST_MKBATCH_H
#define KFSCK_TEST_MKBATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Encode s into out (cap bytes) with testutil.h's tb_record and tb_header;
 * returns the entry's size (0: no room). A data record has a null key and
 * value_len bytes of fill; a marker's key is version 0 and its type, its
 * value version 0 and the coordinator epoch. */
static inline uint32_t mk_batch(uint8_t *out, size_t cap, const mk_spec *s)
{
    int32_t count = s->ctl != MK_DATA ? 1 : s->count;
    size_t need = 61 + (size_t)count * (s->value_len + 40);
    if (need > cap)
        return 0;
    uint8_t key[4] = {0}, ctl_value[6] = {0};
    uint8_t *value = NULL;
    tb_rec rec = {NULL, -1, NULL, (int32_t)s->value_len};
    if (s->ctl == MK_DATA) {
        value = malloc(s->value_len ? s->value_len : 1);
        if (!value)
            return 0;
        memset(value, s->fill, s->value_len);
        rec.val = value;
    } else {
        tb_put16(key + 2, (uint16_t)s->ctl);
        tb_put32(ctl_value + 2, (uint32_t)s->coord);
        rec = (tb_rec){key, 4, ctl_value, 6};
    }
    uint8_t *r = out + 61;
    for (int32_t i = 0; i < count; i++)
        r += tb_record(r, i, &rec);
    free(value);
    uint32_t size = (uint32_t)(r - out);
    uint16_t attrs = (uint16_t)((s->txn ? KF_ATTR_TRANSACTIONAL : 0) | (s->ctl != MK_DATA ? KF_ATTR_CONTROL : 0));
    tb_head h = {s->base, s->epoch, attrs, s->ts, s->pid, s->pepoch, s->seq};
    tb_header(out, size, &h, count - 1, s->ts + count - 1, count);
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
