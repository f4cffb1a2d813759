/* resync.c: bounded random access to a segment for resynchronisation, zero
 * runs and candidate CRCs (resync.h). */
#include "format/resync.h"

#include <stdlib.h>
#include <string.h>

#include "format/source.h"
#include "kfsck/sys/batch.h"
#include "kfsck/sys/codec.h"
#include "kfsck/sys/crc.h"
#include "bytes/cursor.h"

#define CRC_PIECE ((size_t)256 << 10)

void kf_window_init(kf_window *w, kf_source *src)
{
    memset(w, 0, sizeof *w);
    w->src = src;
    w->size = kf_source_size(src);
    w->mem = kf_source_data(src);
}

void kf_window_free(kf_window *w)
{
    free(w->buf);
    free(w->crc_buf);
    w->buf = w->crc_buf = NULL;
}

const uint8_t *kf_window_at(kf_window *w, uint64_t pos, size_t need, size_t *avail)
{
    *avail = 0;
    if (pos >= w->size)
        return NULL;
    uint64_t left = w->size - pos;
    if (w->mem) {
        *avail = left > SIZE_MAX ? SIZE_MAX : (size_t)left;
        return w->mem + pos;
    }
    if (need > left)
        need = (size_t)left;
    if (pos >= w->start && pos - w->start + need <= w->len) {
        *avail = w->len - (size_t)(pos - w->start);
        return w->buf + (pos - w->start);
    }
    size_t want = need > KF_WINDOW_BYTES ? need : KF_WINDOW_BYTES;
    if (want > left)
        want = (size_t)left;
    if (want > w->cap) {
        uint8_t *nb = realloc(w->buf, want);
        if (!nb) {
            w->nomem = true;
            return NULL;
        }
        w->buf = nb;
        w->cap = want;
    }
    int64_t got = kf_source_pread(w->src, pos, w->buf, want);
    if (got <= 0) {
        w->len = 0;
        if (got == 0 || kf_source_shrunk(w->src))
            w->size = pos; /* the file ends here now */
        return NULL;
    }
    if ((size_t)got < want && kf_source_shrunk(w->src))
        w->size = pos + (uint64_t)got;
    w->start = pos;
    w->len = (size_t)got;
    *avail = w->len;
    return w->buf;
}

uint32_t kf_window_crc(kf_window *w, bool castagnoli, uint64_t pos, uint64_t len, bool *ok)
{
    *ok = true;
    if (w->mem) {
        if (pos > w->size || len > w->size - pos) {
            *ok = false;
            return 0;
        }
        return castagnoli ? kf_crc32c(0, w->mem + pos, (size_t)len) : kf_crc32(0, w->mem + pos, (size_t)len);
    }
    /* inside the window: no copy */
    if (pos >= w->start && pos - w->start + len <= w->len) {
        const uint8_t *p = w->buf + (pos - w->start);
        return castagnoli ? kf_crc32c(0, p, (size_t)len) : kf_crc32(0, p, (size_t)len);
    }
    if (!w->crc_buf && !(w->crc_buf = malloc(CRC_PIECE))) {
        w->nomem = true;
        *ok = false;
        return 0;
    }
    uint32_t crc = 0;
    while (len) {
        size_t n = len < CRC_PIECE ? (size_t)len : CRC_PIECE;
        int64_t got = kf_source_pread(w->src, pos, w->crc_buf, n);
        if (got != (int64_t)n) {
            *ok = false;
            return 0;
        }
        crc = castagnoli ? kf_crc32c(crc, w->crc_buf, n) : kf_crc32(crc, w->crc_buf, n);
        pos += n;
        len -= n;
    }
    return crc;
}

bool kf_v2_header_plausible(const uint8_t *q, uint64_t len)
{
    if (len < KF_V2_HEADER_SIZE - KF_LOG_OVERHEAD || q[21] != 0 || (q[22] & KF_ATTR_CODEC_MASK) > KF_CODEC_ZSTD)
        return false;
    int64_t base = (int64_t)kf_be64(q);
    int32_t lod = (int32_t)kf_be32(q + 23);
    int32_t count = (int32_t)kf_be32(q + 57);
    int16_t epoch = (int16_t)kf_be16(q + 51);
    return !(base < 0 || lod < 0 || count < 0 || (count > 0 && (int64_t)count > (int64_t)lod + 1) || epoch < -1);
}

/* v0/v1: the message's own key and value lengths must fill it exactly. */
static bool legacy_header_plausible(const uint8_t *q, uint64_t len, int magic, size_t avail)
{
    uint32_t min = magic == 0 ? KF_V0_MIN_SIZE : KF_V1_MIN_SIZE;
    if (len < min || (q[17] & 0xf0) || (int64_t)kf_be64(q) < 0)
        return false;
    uint64_t kpos = KF_LOG_OVERHEAD + (magic == 0 ? 6 : 14);
    uint64_t end = KF_LOG_OVERHEAD + len;
    if (kpos + 4 > avail)
        return false;
    int32_t klen = (int32_t)kf_be32(q + kpos);
    if (klen < -1 || kpos + 4 + (uint64_t)(klen > 0 ? klen : 0) + 4 > end)
        return false;
    uint64_t vpos = kpos + 4 + (uint64_t)(klen > 0 ? klen : 0);
    if (vpos + 4 > avail)
        return false;
    int32_t vlen = (int32_t)kf_be32(q + vpos);
    return !(vlen < -1 || vpos + 4 + (uint64_t)(vlen > 0 ? vlen : 0) != end);
}

bool kf_entry_plausible(kf_window *w, uint64_t p)
{
    if (p >= w->size || w->size - p < KF_HEADER_UP_TO_MAGIC + 1)
        return false;
    size_t avail;
    const uint8_t *q = kf_window_at(w, p, KF_V2_HEADER_SIZE, &avail);
    if (!q || avail < KF_HEADER_UP_TO_MAGIC + 1)
        return false;
    int magic = q[16];
    if (magic > 2)
        return false;
    int32_t len = (int32_t)kf_be32(q + 8);
    if (len < KF_V0_MIN_SIZE || (uint64_t)len + KF_LOG_OVERHEAD > w->size - p || (uint64_t)len > KF_RESYNC_MAX_BATCH)
        return false;
    uint64_t total = (uint64_t)len + KF_LOG_OVERHEAD;
    if (magic == 2) {
        if (avail < KF_V2_HEADER_SIZE || !kf_v2_header_plausible(q, (uint64_t)len))
            return false;
        uint32_t stored = kf_be32(q + 17);
        bool ok;
        uint32_t crc = kf_window_crc(w, true, p + 21, total - 21, &ok);
        return ok && crc == stored;
    }
    /* the legacy length checks may need the whole message in view */
    if (avail < total && total <= KF_WINDOW_BYTES)
        q = kf_window_at(w, p, (size_t)total, &avail);
    if (!q || !legacy_header_plausible(q, (uint64_t)len, magic, avail))
        return false;
    uint32_t stored = kf_be32(q + 12);
    bool ok;
    uint32_t crc = kf_window_crc(w, false, p + 16, total - 16, &ok);
    return ok && crc == stored;
}

uint64_t kf_zero_run_end(kf_window *w, uint64_t from, uint64_t end)
{
    if (end > w->size)
        end = w->size;
    uint64_t p = from;
    uint64_t hs = 0, he = 0;
    int have_hole = w->mem ? 0 : kf_source_next_hole(w->src, p, end, &hs, &he);
    while (p < end) {
        if (have_hole && p >= hs) {
            p = he;
            have_hole = kf_source_next_hole(w->src, p, end, &hs, &he);
            continue;
        }
        uint64_t lim = have_hole ? hs : end;
        while (p < lim) {
            size_t avail;
            const uint8_t *d = kf_window_at(w, p, 1, &avail);
            if (!d)
                return p;
            size_t n = avail < lim - p ? avail : (size_t)(lim - p);
            size_t i = 0;
            while (i < n && ((uintptr_t)(d + i) & 7))
                if (d[i])
                    return p + i;
                else
                    i++;
            while (i + 8 <= n) {
                uint64_t x;
                memcpy(&x, d + i, 8);
                if (x)
                    break;
                i += 8;
            }
            for (; i < n; i++)
                if (d[i])
                    return p + i;
            p += n;
        }
    }
    return end;
}

/* The scan looks at a window of bytes at a time; positions within the last
 * SCAN_TAIL bytes of a window are looked at again from the next window. */
#define SCAN_TAIL 64

uint64_t kf_find_next(kf_window *w, uint64_t from)
{
    uint64_t p = from;
    for (;;) {
        if (p >= w->size || w->size - p < KF_HEADER_UP_TO_MAGIC + 1 || w->nomem)
            return w->size;
        size_t avail;
        if (!kf_window_at(w, p, SCAN_TAIL * 2, &avail))
            return w->size;
        /* positions whose 64 bytes (a frame and a zero-run probe) are in view */
        uint64_t stop = p + (avail > SCAN_TAIL ? avail - SCAN_TAIL : 1);
        if (avail >= w->size - p)
            stop = w->size - KF_HEADER_UP_TO_MAGIC; /* the whole rest is in view */
        const uint8_t *base = w->mem ? w->mem : w->buf - w->start; /* base + p: byte p */
        uint64_t ws = w->start;
        while (p < stop) {
            const uint8_t *q = base + p;
            if (q[16] > 2) {
                p++;
                continue;
            }
            if (q[0] == 0 && w->size - p >= 64) {
                uint64_t w1, w2;
                memcpy(&w1, q, 8);
                memcpy(&w2, q + 8, 8);
                if (!w1 && !w2) {
                    uint64_t z = kf_zero_run_end(w, p, w->size);
                    if (z >= w->size)
                        return w->size;
                    if (z - p > 16) {
                        p = z - 11; /* a batch may begin with up to 11 zero bytes */
                        break;
                    }
                    if (!w->mem && w->start != ws)
                        break; /* the window moved: look at p again from a fresh one */
                }
            }
            if (kf_entry_plausible(w, p))
                return p;
            p++;
            if (!w->mem && w->start != ws)
                break; /* the check moved the window */
        }
    }
}
