/* codec.c: decompression of Kafka batch payloads (gzip, snappy raw and xerial,
 * lz4 frames with the old broken header checksum, zstd) into a reusable
 * buffer that never grows past the caller's cap.
 *
 * Output goes through a "sink": the kf_buf grows geometrically up to max_out;
 * once max_out bytes are out, the decoder is handed a small probe buffer, and
 * any byte landing there means the stream is bigger than the cap
 * (KF_ERR_TOO_BIG). So a decompression bomb costs at most max_out bytes of
 * buffer, plus the decoders' own bounded state. On failure out->len holds what
 * was decoded before the error (useful for forensics).
 *
 * Decoder contexts (z_stream, LZ4F_dctx, ZSTD_DCtx) are cached per thread and
 * freed at thread exit, so steady-state decoding allocates nothing. */
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lz4frame.h>
#define XXH_INLINE_ALL /* xxhash's header-only form: no libxxhash to load at start-up */
#include <xxhash.h>
#include <zlib.h>
#include <zstd.h>

#include "kfsck/sys/codec.h"

#include "bytes/codec_load.h"
#include "bytes/error.h"

const char *kf_codec_name(int codec)
{
    switch (codec) {
    case KF_CODEC_NONE: return "none";
    case KF_CODEC_GZIP: return "gzip";
    case KF_CODEC_SNAPPY: return "snappy";
    case KF_CODEC_LZ4: return "lz4";
    case KF_CODEC_ZSTD: return "zstd";
    }
    return "unknown";
}

/* ---- kf_buf --------------------------------------------------------------- */

/* Sets the capacity to exactly cap (>= b->len), keeping the first b->len bytes. */
static int buf_set_cap(kf_buf *b, size_t cap)
{
    void *p;
    if (b->len == 0) {
        /* nothing to keep: skip realloc's copy */
        free(b->data);
        b->data = NULL;
        b->cap = 0;
        p = malloc(cap ? cap : 1);
    } else {
        p = realloc(b->data, cap ? cap : 1);
    }
    if (!p)
        return kf_error_nomem();
    b->data = p;
    b->cap = cap;
    return KF_OK;
}

void kf_buf_free(kf_buf *b)
{
    if (!b)
        return;
    free(b->data);
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}

int kf_buf_reserve(kf_buf *b, size_t need)
{
    if (need <= b->cap)
        return KF_OK;
    size_t ncap = b->cap ? b->cap : 256;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2) {
            ncap = need;
            break;
        }
        ncap *= 2;
    }
    return buf_set_cap(b, ncap);
}

/* ---- the capped output sink ----------------------------------------------- */

typedef struct sink {
    kf_buf *out;
    size_t max_out;
    size_t first;       /* size of the first allocation when out is empty */
    bool probing;       /* the last space handed out was the probe buffer */
    uint8_t probe[64];
} sink;

static void sink_init(sink *s, kf_buf *out, size_t max_out, size_t inlen)
{
    s->out = out;
    s->max_out = max_out;
    s->probing = false;
    /* compressed batches typically expand 2-10x */
    size_t first = inlen <= SIZE_MAX / 4 ? inlen * 4 : SIZE_MAX;
    if (first < 16384)
        first = 16384;
    s->first = first < max_out ? first : max_out;
}

/* Grows out to hold at least need bytes (need <= max_out): doubling, clamped
 * to max_out. */
static int sink_reserve(sink *s, size_t need)
{
    kf_buf *b = s->out;
    if (need <= b->cap)
        return KF_OK;
    size_t want = b->cap ? (b->cap <= SIZE_MAX / 2 ? b->cap * 2 : SIZE_MAX) : s->first;
    if (want > s->max_out)
        want = s->max_out;
    if (want < need)
        want = need;
    return buf_set_cap(b, want);
}

/* Where the decoder may write next: the free part of out (never past
 * max_out), or the probe buffer once max_out bytes are out. */
static int sink_space(sink *s, uint8_t **dst, size_t *avail)
{
    kf_buf *b = s->out;
    if (b->len < s->max_out) {
        if (b->len >= b->cap) {
            int rc = sink_reserve(s, b->len + 1);
            if (rc != KF_OK)
                return rc;
        }
        size_t limit = b->cap < s->max_out ? b->cap : s->max_out;
        *dst = b->data + b->len;
        *avail = limit - b->len;
        s->probing = false;
    } else {
        *dst = s->probe;
        *avail = sizeof s->probe;
        s->probing = true;
    }
    return KF_OK;
}

/* Accounts n bytes written into the space from sink_space. */
static int sink_commit(sink *s, size_t n)
{
    if (s->probing)
        return n ? KF_ERR_TOO_BIG : KF_OK;
    s->out->len += n;
    return KF_OK;
}

static int too_big(const sink *s, const char *codec)
{
    return kf_error_set(KF_ERR_TOO_BIG, 0, NULL, "%s: decompressed data exceeds the %zu-byte cap", codec, s->max_out);
}

/* ---- per-thread decoder contexts ------------------------------------------ */

typedef struct codec_ctx {
    z_stream zs;
    bool zs_ready;
    LZ4F_dctx *lz4;
    bool lz4_unfinished; /* the last frame stopped early: lz4 is replaced before its next use */
    ZSTD_DCtx *zstd;
} codec_ctx;

static _Thread_local codec_ctx *tls_ctx;
static pthread_key_t ctx_key;
static bool ctx_key_ok;
static pthread_once_t ctx_once = PTHREAD_ONCE_INIT;

static void ctx_free(void *p)
{
    codec_ctx *c = p;
    if (!c)
        return;
    if (c->zs_ready)
        inflateEnd(&c->zs);
    if (c->lz4)
        LZ4F_freeDecompressionContext(c->lz4);
    ZSTD_freeDCtx(c->zstd);
    free(c);
    if (tls_ctx == c)
        tls_ctx = NULL;
}

static void ctx_key_init(void)
{
    ctx_key_ok = pthread_key_create(&ctx_key, ctx_free) == 0;
}

static codec_ctx *get_ctx(void)
{
    if (tls_ctx)
        return tls_ctx;
    pthread_once(&ctx_once, ctx_key_init);
    codec_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    if (ctx_key_ok)
        (void)pthread_setspecific(ctx_key, c); /* on failure: kept for the thread's life, freed never */
    tls_ctx = c;
    return c;
}

/* How every stream decoder (gzip, lz4, zstd) begins: an empty input is
 * truncated (a stream has at least its header), then this thread's decoder
 * contexts. KF_OK with *c set, else the error, named for the codec, in the
 * last error. */
static int stream_begin(const char *codec, size_t inlen, codec_ctx **c)
{
    if (inlen == 0)
        return kf_error_set(KF_ERR_TRUNCATED, 0, NULL, "%s: empty input", codec);
    if (!(*c = get_ctx()))
        return kf_error_set(KF_ERR_NOMEM, 0, NULL, "%s: out of memory", codec);
    return KF_OK;
}

/* ---- none ----------------------------------------------------------------- */

static int dec_none(const uint8_t *in, size_t inlen, sink *s)
{
    if (inlen > s->max_out)
        return too_big(s, "none");
    if (inlen == 0)
        return KF_OK;
    if (sink_reserve(s, inlen) != KF_OK)
        return kf_error_set(KF_ERR_NOMEM, 0, NULL, "none: out of memory for %zu bytes", inlen);
    memcpy(s->out->data, in, inlen);
    s->out->len = inlen;
    return KF_OK;
}

/* ---- gzip ----------------------------------------------------------------- */

static int dec_gzip(const uint8_t *in, size_t inlen, sink *s)
{
    codec_ctx *c;
    int rc = stream_begin("gzip", inlen, &c);
    if (rc != KF_OK)
        return rc;
    z_stream *zs = &c->zs;
    if (!c->zs_ready) {
        memset(zs, 0, sizeof *zs);
        if (inflateInit2(zs, 15 + 16) != Z_OK)
            return kf_error_set(KF_ERR_NOMEM, 0, NULL, "gzip: cannot initialise zlib");
        c->zs_ready = true;
    } else if (inflateReset2(zs, 15 + 16) != Z_OK) {
        return kf_error_set(KF_ERR_NOMEM, 0, NULL, "gzip: cannot reset zlib");
    }

    const uint8_t *next = in; /* input not yet handed to zlib */
    size_t left = inlen;
    unsigned members = 0;
    zs->next_in = NULL;
    zs->avail_in = 0;
    for (;;) {
        if (zs->avail_in == 0 && left > 0) {
            uInt n = left > UINT_MAX ? UINT_MAX : (uInt)left;
            zs->next_in = (Bytef *)(uintptr_t)next;
            zs->avail_in = n;
            next += n;
            left -= n;
        }
        uint8_t *dst;
        size_t avail;
        if (sink_space(s, &dst, &avail) != KF_OK)
            return kf_error_set(KF_ERR_NOMEM, 0, NULL, "gzip: out of memory");
        uInt av = avail > UINT_MAX ? UINT_MAX : (uInt)avail;
        zs->next_out = dst;
        zs->avail_out = av;
        int zr = inflate(zs, Z_NO_FLUSH);
        size_t produced = av - zs->avail_out;
        if (sink_commit(s, produced) != KF_OK)
            return too_big(s, "gzip");
        switch (zr) {
        case Z_STREAM_END:
            members++;
            if (zs->avail_in == 0 && left == 0)
                return KF_OK;
            /* more input: it must be another member (zs->next_in is contiguous with next) */
            {
                size_t rest = zs->avail_in + left;
                if (rest < 2 || zs->next_in[0] != 0x1f || zs->next_in[1] != 0x8b)
                    return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "gzip: %zu bytes of trailing garbage after member %u",
                                rest, members);
            }
            inflateReset(zs);
            continue;
        case Z_OK:
            continue;
        case Z_BUF_ERROR:
            if (zs->avail_in == 0 && left == 0)
                return kf_error_set(KF_ERR_TRUNCATED, 0, NULL, "gzip: stream truncated in member %u", members + 1);
            if (produced == 0)
                return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "gzip: decoder made no progress");
            continue;
        case Z_MEM_ERROR:
            return kf_error_set(KF_ERR_NOMEM, 0, NULL, "gzip: out of memory");
        default:
            if (members > 0)
                return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "gzip: bad data after member %u: %s", members,
                            zs->msg ? zs->msg : "invalid data");
            return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "gzip: %s", zs->msg ? zs->msg : "invalid data");
        }
    }
}

/* ---- snappy --------------------------------------------------------------- */

static const uint8_t xerial_magic[8] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* Appends one raw snappy block; the cap is checked before allocating. */
static int snappy_block(const uint8_t *p, size_t n, sink *s, const char *where)
{
    const kf_snappy_fns *snappy = kf_snappy_load();
    if (!snappy)
        return KF_ERR_UNSUPPORTED; /* the last error says why */
    size_t ulen;
    if (snappy->uncompressed_length((const char *)p, n, &ulen) != SNAPPY_OK)
        return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "snappy: %sbad length header", where);
    /* only the header's claim: said as such, nothing is decompressed */
    if (ulen > s->max_out - s->out->len && s->out->len == 0)
        return kf_error_set(KF_ERR_TOO_BIG, 0, NULL,
                    "snappy: %slength header claims %zu decompressed bytes, over the %zu-byte cap (not decompressed)",
                    where, ulen, s->max_out);
    if (ulen > s->max_out - s->out->len)
        return kf_error_set(KF_ERR_TOO_BIG, 0, NULL,
                    "snappy: %slength header claims %zu more decompressed bytes after %zu, over the %zu-byte cap "
                    "(not decompressed)",
                    where, ulen, s->out->len, s->max_out);
    char dummy[1];
    char *dst = dummy;
    size_t olen = sizeof dummy;
    if (ulen > 0) {
        if (sink_reserve(s, s->out->len + ulen) != KF_OK)
            return kf_error_set(KF_ERR_NOMEM, 0, NULL, "snappy: out of memory for %zu bytes", ulen);
        dst = (char *)s->out->data + s->out->len;
        olen = ulen;
    }
    if (snappy->uncompress((const char *)p, n, dst, &olen) != SNAPPY_OK || (ulen > 0 && olen != ulen))
        return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "snappy: %sinvalid compressed data", where);
    s->out->len += ulen;
    return KF_OK;
}

static int dec_snappy(const uint8_t *in, size_t inlen, sink *s)
{
    if (inlen < 16 || memcmp(in, xerial_magic, 8) != 0)
        return snappy_block(in, inlen, s, "");

    /* xerial snappy-java stream: header, then [int32 BE length][raw block]... */
    size_t pos = 16;
    unsigned chunk = 0;
    char where[48];
    while (pos < inlen) {
        if (inlen - pos < 4)
            return kf_error_set(KF_ERR_TRUNCATED, 0, NULL, "snappy: xerial chunk %u length truncated", chunk);
        uint32_t clen = be32(in + pos);
        if (clen == be32(xerial_magic)) {
            /* a repeated stream header: concatenated streams */
            if (inlen - pos < 16)
                return kf_error_set(KF_ERR_TRUNCATED, 0, NULL, "snappy: repeated xerial header truncated");
            pos += 16;
            continue;
        }
        if (clen > INT32_MAX)
            return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "snappy: xerial chunk %u has negative length", chunk);
        pos += 4;
        if (clen > inlen - pos)
            return kf_error_set(KF_ERR_TRUNCATED, 0, NULL, "snappy: xerial chunk %u truncated (%u bytes, %zu left)",
                        chunk, clen, inlen - pos);
        snprintf(where, sizeof where, "xerial chunk %u: ", chunk);
        int rc = snappy_block(in + pos, clen, s, where);
        if (rc != KF_OK)
            return rc;
        pos += clen;
        chunk++;
    }
    return KF_OK;
}

/* ---- lz4 ------------------------------------------------------------------ */

#define LZ4_FRAME_MAGIC 0x184D2204u

static int lz4_frames(LZ4F_dctx *d, int magic, const uint8_t *in, size_t inlen, sink *s);

static int dec_lz4(int magic, const uint8_t *in, size_t inlen, sink *s)
{
    codec_ctx *c;
    int rc = stream_begin("lz4", inlen, &c);
    if (rc != KF_OK)
        return rc;
    /* LZ4F_resetDecompressionContext (liblz4 1.9) does not forget the
     * content size still owed by a frame that declared one and stopped
     * early (damage, the cap): the next frame without a content size would
     * fail with ERROR_frameSize_wrong. Such a context is replaced; one
     * whose last frame ended is only reset. */
    if (c->lz4 && c->lz4_unfinished) {
        LZ4F_freeDecompressionContext(c->lz4);
        c->lz4 = NULL;
    }
    if (!c->lz4 && LZ4F_isError(LZ4F_createDecompressionContext(&c->lz4, LZ4F_VERSION))) {
        c->lz4 = NULL;
        return kf_error_set(KF_ERR_NOMEM, 0, NULL, "lz4: cannot create decoder");
    }
    LZ4F_dctx *d = c->lz4;
    LZ4F_resetDecompressionContext(d);
    c->lz4_unfinished = true;
    rc = lz4_frames(d, magic, in, inlen, s);
    c->lz4_unfinished = rc != KF_OK;
    return rc;
}

/* The frames of in[0..inlen) through d into s. */
static int lz4_frames(LZ4F_dctx *d, int magic, const uint8_t *in, size_t inlen, sink *s)
{

    size_t pos = 0;
    unsigned frame = 0;
    while (pos < inlen) {
        size_t left = inlen - pos;
        if (left < 4)
            return kf_error_set(frame ? KF_ERR_CORRUPT : KF_ERR_TRUNCATED, 0, NULL,
                        "lz4: %zu stray bytes at offset %zu", left, pos);
        uint32_t fm = le32(in + pos);
        if ((fm & 0xFFFFFFF0u) == 0x184D2A50u) { /* skippable frame */
            if (left < 8)
                return kf_error_set(KF_ERR_TRUNCATED, 0, NULL, "lz4: skippable frame header truncated");
            uint32_t sz = le32(in + pos + 4);
            if (sz > left - 8)
                return kf_error_set(KF_ERR_TRUNCATED, 0, NULL, "lz4: skippable frame truncated");
            pos += 8 + (size_t)sz;
            continue;
        }
        if (fm != LZ4_FRAME_MAGIC)
            return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "lz4: bad frame magic 0x%08x at offset %zu", fm, pos);

        /* frame descriptor: FLG BD [content size 8] [dict id 4] HC */
        if (left < 7)
            return kf_error_set(KF_ERR_TRUNCATED, 0, NULL, "lz4: frame header truncated");
        uint8_t flg = in[pos + 4];
        if ((flg >> 6) != 1)
            return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "lz4: unsupported frame version %u", flg >> 6);
        size_t dlen = 2 + ((flg & 0x08) ? 8 : 0) + ((flg & 0x01) ? 4 : 0);
        if (left < 4 + dlen + 1)
            return kf_error_set(KF_ERR_TRUNCATED, 0, NULL, "lz4: frame header truncated");
        uint8_t hc = in[pos + 4 + dlen];
        uint8_t good = (uint8_t)(XXH32(in + pos + 4, dlen, 0) >> 8);
        uint8_t broken = (uint8_t)(XXH32(in + pos, 4 + dlen, 0) >> 8); /* Kafka < 0.10: over the magic too */
        if (magic != 0 && hc != good && hc != broken)
            return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "lz4 frame header checksum mismatch");

        /* liblz4 gets the header with the correct HC patched in */
        uint8_t hdr[19];
        size_t hlen = 4 + dlen + 1;
        memcpy(hdr, in + pos, 4 + dlen);
        hdr[4 + dlen] = good;
        size_t fed = 0;
        while (fed < hlen) {
            uint8_t none[1];
            size_t dsz = 0, ssz = hlen - fed;
            size_t r = LZ4F_decompress(d, none, &dsz, hdr + fed, &ssz, NULL);
            if (LZ4F_isError(r))
                return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "lz4: frame %u header: %s", frame, LZ4F_getErrorName(r));
            if (ssz == 0)
                return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "lz4: frame %u header not accepted", frame);
            fed += ssz;
        }
        pos += hlen;

        for (;;) {
            uint8_t *dst;
            size_t avail;
            if (sink_space(s, &dst, &avail) != KF_OK)
                return kf_error_set(KF_ERR_NOMEM, 0, NULL, "lz4: out of memory");
            size_t dsz = avail, ssz = inlen - pos;
            size_t r = LZ4F_decompress(d, dst, &dsz, in + pos, &ssz, NULL);
            if (LZ4F_isError(r))
                return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "lz4: frame %u: %s", frame, LZ4F_getErrorName(r));
            pos += ssz;
            if (sink_commit(s, dsz) != KF_OK)
                return too_big(s, "lz4");
            if (r == 0)
                break; /* frame complete; the context is ready for the next one */
            if (dsz == 0 && pos == inlen)
                return kf_error_set(KF_ERR_TRUNCATED, 0, NULL, "lz4: frame %u truncated", frame);
            if (dsz == 0 && ssz == 0)
                return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "lz4: frame %u: decoder made no progress", frame);
        }
        frame++;
    }
    return KF_OK;
}

/* ---- zstd ----------------------------------------------------------------- */

/* libzstd's default window limit (ZSTD_WINDOWLOG_LIMIT_DEFAULT, static-only API). */
#define ZSTD_DEFAULT_WINDOWLOG_MAX 27

static int dec_zstd(const uint8_t *in, size_t inlen, sink *s)
{
    codec_ctx *c;
    int rc = stream_begin("zstd", inlen, &c);
    if (rc != KF_OK)
        return rc;
    if (!c->zstd && !(c->zstd = ZSTD_createDCtx()))
        return kf_error_set(KF_ERR_NOMEM, 0, NULL, "zstd: cannot create decoder");
    ZSTD_DCtx *d = c->zstd;
    ZSTD_DCtx_reset(d, ZSTD_reset_session_only);
    /* The window buffer zstd allocates is bounded by windowLogMax: keep the
     * library default (128 MiB), raised only when the cap is larger. */
    int wl = ZSTD_DEFAULT_WINDOWLOG_MAX;
    ZSTD_bounds wb = ZSTD_dParam_getBounds(ZSTD_d_windowLogMax);
    while (wl < wb.upperBound && wl < (int)(sizeof(size_t) * CHAR_BIT) - 1 && ((size_t)1 << wl) < s->max_out)
        wl++;
    ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax, wl);

    ZSTD_inBuffer ib = {in, inlen, 0};
    for (;;) {
        uint8_t *dst;
        size_t avail;
        if (sink_space(s, &dst, &avail) != KF_OK)
            return kf_error_set(KF_ERR_NOMEM, 0, NULL, "zstd: out of memory");
        ZSTD_outBuffer ob = {dst, avail, 0};
        size_t r = ZSTD_decompressStream(d, &ob, &ib);
        if (ZSTD_isError(r)) {
            ZSTD_DCtx_reset(d, ZSTD_reset_session_only);
            return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "zstd: %s at input offset %zu", ZSTD_getErrorName(r), ib.pos);
        }
        if (sink_commit(s, ob.pos) != KF_OK) {
            ZSTD_DCtx_reset(d, ZSTD_reset_session_only);
            return too_big(s, "zstd");
        }
        if (ib.pos == ib.size) {
            if (r == 0)
                return KF_OK; /* last frame complete and flushed */
            if (ob.pos < ob.size) {
                ZSTD_DCtx_reset(d, ZSTD_reset_session_only);
                return kf_error_set(KF_ERR_TRUNCATED, 0, NULL, "zstd: stream truncated");
            }
        }
        /* r == 0 with input left: the next frame starts */
    }
}

/* ---- entry point ---------------------------------------------------------- */

int kf_decompress(int codec, int magic, const uint8_t *in, size_t inlen, kf_buf *out, size_t max_out)
{
    out->len = 0;
    if (!in && inlen)
        return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "%s: no input buffer", kf_codec_name(codec));
    sink s;
    sink_init(&s, out, max_out, inlen);
    switch (codec) {
    case KF_CODEC_NONE: return dec_none(in, inlen, &s);
    case KF_CODEC_GZIP: return dec_gzip(in, inlen, &s);
    case KF_CODEC_SNAPPY: return dec_snappy(in, inlen, &s);
    case KF_CODEC_LZ4: return dec_lz4(magic, in, inlen, &s);
    case KF_CODEC_ZSTD: return dec_zstd(in, inlen, &s);
    }
    return kf_error_set(KF_ERR_UNSUPPORTED, 0, NULL, "unknown compression codec %d", codec);
}
