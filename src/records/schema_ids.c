/* schema_ids.c: the Confluent Schema Registry framing of keys and values
 * (kfsck/sys/schema_ids.h; docs/formats.md §2.8) and the per-segment tally
 * of the ids seen. */
#include "kfsck/sys/schema_ids.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
#include "kfsck/common.h"

#define MAGIC_ID 0   /* Confluent's MAGIC_BYTE_V0: a 4-byte id follows */
#define MAGIC_GUID 1 /* MAGIC_BYTE_V1: a 16-byte GUID follows */

kf_schema_framing kf_schema_frame_read(const uint8_t *p, int32_t len, kf_schema_frame *f)
{
    memset(f, 0, sizeof *f);
    if (len < 0 || (!p && len > 0)) {
        f->kind = KF_SCHEMA_NULL;
        return f->kind;
    }
    f->kind = KF_SCHEMA_UNFRAMED;
    if (len >= 5 && p[0] == MAGIC_ID) {
        uint32_t u = (uint32_t)p[1] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 8 | p[4];
        f->id = (int32_t)u; /* two's complement, as Java's ByteBuffer.getInt */
        f->kind = KF_SCHEMA_ID;
    } else if (len >= 17 && p[0] == MAGIC_GUID) {
        memcpy(f->guid, p + 1, 16);
        f->kind = KF_SCHEMA_GUID;
    }
    return f->kind;
}

void kf_schema_guid_str(const uint8_t guid[16], char out[37])
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out[o++] = '-';
        out[o++] = hex[guid[i] >> 4];
        out[o++] = hex[guid[i] & 15];
    }
    out[o] = 0;
}

typedef struct tally_entry {
    kf_schema_frame f;
    uint64_t count;
} tally_entry;

struct kf_schema_tally {
    tally_entry *e; /* KF_SCHEMA_TALLY_MAX of them, the first n in use, sorted (frame_cmp) */
    size_t n;
    uint64_t omitted;
};

/* ids ascending, then GUIDs by their bytes */
static int frame_cmp(const kf_schema_frame *a, const kf_schema_frame *b)
{
    if (a->kind != b->kind)
        return a->kind == KF_SCHEMA_ID ? -1 : 1;
    if (a->kind == KF_SCHEMA_ID)
        return a->id < b->id ? -1 : a->id > b->id;
    return memcmp(a->guid, b->guid, 16);
}

int kf_schema_tally_new(kf_schema_tally **out)
{
    kf_schema_tally *t = calloc(1, sizeof *t);
    if (t && !(t->e = malloc(KF_SCHEMA_TALLY_MAX * sizeof *t->e))) { /* bounded: 128 KiB */
        free(t);
        t = NULL;
    }
    *out = t;
    return t ? KF_OK : kf_error_nomem();
}

void kf_schema_tally_free(kf_schema_tally *t)
{
    if (!t)
        return;
    free(t->e);
    free(t);
}

void kf_schema_tally_reset(kf_schema_tally *t)
{
    t->n = 0;
    t->omitted = 0;
}

int kf_schema_tally_add(kf_schema_tally *t, const kf_schema_frame *f)
{
    if (f->kind != KF_SCHEMA_ID && f->kind != KF_SCHEMA_GUID)
        return KF_OK;
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = frame_cmp(&t->e[mid].f, f);
        if (c == 0) {
            t->e[mid].count++;
            return KF_OK;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (t->n >= KF_SCHEMA_TALLY_MAX) {
        t->omitted++;
        return KF_OK;
    }
    memmove(&t->e[lo + 1], &t->e[lo], (t->n - lo) * sizeof *t->e);
    t->e[lo].f = *f;
    t->e[lo].count = 1;
    t->n++;
    return KF_OK;
}

size_t kf_schema_tally_count(const kf_schema_tally *t)
{
    return t->n;
}

void kf_schema_tally_get(const kf_schema_tally *t, size_t i, kf_schema_frame *f, uint64_t *count)
{
    *f = t->e[i].f;
    *count = t->e[i].count;
}

uint64_t kf_schema_tally_omitted(const kf_schema_tally *t)
{
    return t->omitted;
}
