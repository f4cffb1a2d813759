/* cursor.h: a bounds-checked big-endian byte reader with a sticky error.
 *
 * Parsing code reads straight down and checks `c.err` once at the end: after
 * the first read that would pass the end (or a malformed varint), every later
 * read returns 0 / NULL and the position stops moving. Modelled on
 * librdkafka's buffer readers. Internal to the library: the struct is in
 * common.h, because a caller passes one to kf_header_next. */
#ifndef KFSCK_CURSOR_H
#define KFSCK_CURSOR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kfsck/common.h"

#ifdef __cplusplus
extern "C" {
#endif


static inline void kf_cur_init(kf_cursor *c, const void *buf, size_t len)
{
    c->buf = (const uint8_t *)buf;
    c->len = len;
    c->pos = 0;
    c->err = 0;
}

static inline size_t kf_cur_left(const kf_cursor *c) { return c->err ? 0 : c->len - c->pos; }

static inline void kf_cur_fail(kf_cursor *c, int err)
{
    if (!c->err)
        c->err = err;
}

/* Returns a pointer to the next n bytes and advances, or NULL (sticky error). */
static inline const uint8_t *kf_cur_take(kf_cursor *c, size_t n)
{
    if (c->err || c->len - c->pos < n) {
        kf_cur_fail(c, 1 /* KF_ERR_TRUNCATED */);
        return NULL;
    }
    const uint8_t *p = c->buf + c->pos;
    c->pos += n;
    return p;
}

static inline void kf_cur_skip(kf_cursor *c, size_t n) { (void)kf_cur_take(c, n); }

static inline uint8_t kf_cur_u8(kf_cursor *c)
{
    const uint8_t *p = kf_cur_take(c, 1);
    return p ? p[0] : 0;
}

static inline uint16_t kf_be16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static inline uint32_t kf_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static inline uint64_t kf_be64(const uint8_t *p) { return ((uint64_t)kf_be32(p) << 32) | kf_be32(p + 4); }

/* The next n bytes (2, 4 or 8) as a big-endian unsigned integer; 0 once the
 * cursor has failed. The fixed-width readers below are this, cast. */
static inline uint64_t kf_cur_be(kf_cursor *c, size_t n)
{
    const uint8_t *p = kf_cur_take(c, n);
    if (!p)
        return 0;
    return n == 2 ? kf_be16(p) : n == 4 ? kf_be32(p) : kf_be64(p);
}

static inline int16_t kf_cur_i16(kf_cursor *c) { return (int16_t)kf_cur_be(c, 2); }
static inline uint16_t kf_cur_u16(kf_cursor *c) { return (uint16_t)kf_cur_be(c, 2); }
static inline int32_t kf_cur_i32(kf_cursor *c) { return (int32_t)kf_cur_be(c, 4); }
static inline uint32_t kf_cur_u32(kf_cursor *c) { return (uint32_t)kf_cur_be(c, 4); }
static inline int64_t kf_cur_i64(kf_cursor *c) { return (int64_t)kf_cur_be(c, 8); }
static inline double kf_cur_f64(kf_cursor *c)
{
    uint64_t u = (uint64_t)kf_cur_i64(c);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* Unsigned base-128 varint of at most maxbytes bytes (5 for 32-bit, 10 for 64-bit). */
static inline uint64_t kf_cur_uvar_n(kf_cursor *c, int maxbytes)
{
    if (!c->err && c->len - c->pos >= (size_t)maxbytes) {
        /* the common case, every byte it may need in view: no check per byte */
        const uint8_t *p = c->buf + c->pos;
        uint64_t v = p[0] & 0x7f;
        if (!(p[0] & 0x80)) {
            c->pos++;
            return v;
        }
        for (int i = 1; i < maxbytes; i++) {
            v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
            if (!(p[i] & 0x80)) {
                c->pos += (size_t)i + 1;
                return v;
            }
        }
        kf_cur_fail(c, 2 /* KF_ERR_CORRUPT */);
        return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < maxbytes; i++) {
        const uint8_t *p = kf_cur_take(c, 1);
        if (!p)
            return 0;
        v |= (uint64_t)(p[0] & 0x7f) << (7 * i);
        if (!(p[0] & 0x80))
            return v;
    }
    kf_cur_fail(c, 2 /* KF_ERR_CORRUPT */);
    return 0;
}

static inline uint32_t kf_cur_uvarint(kf_cursor *c) { return (uint32_t)kf_cur_uvar_n(c, 5); }
static inline uint64_t kf_cur_uvarlong(kf_cursor *c) { return kf_cur_uvar_n(c, 10); }

/* Zigzag-encoded signed varints as Kafka's records use them. */
static inline int32_t kf_cur_varint(kf_cursor *c)
{
    uint32_t u = kf_cur_uvarint(c);
    return (int32_t)((u >> 1) ^ (~(u & 1) + 1));
}
static inline int64_t kf_cur_varlong(kf_cursor *c)
{
    uint64_t u = kf_cur_uvarlong(c);
    return (int64_t)((u >> 1) ^ (~(u & 1) + 1));
}

#ifdef __cplusplus
}
#endif

#endif
