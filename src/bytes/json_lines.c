/* json_lines.c: the JSON-lines writer (kfsck/sys/json_lines.h): builds a
 * line in memory, value by value, with the one formatting and escaping of
 * numbers, strings and bytes every command's JSON output has, and hands it
 * to the caller's sink. */
#include "kfsck/sys/json_lines.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kf_jsonl_init(kf_jsonl *j, unsigned flags, kf_jsonl_sink sink, void *ctx)
{
    memset(j, 0, sizeof *j);
    j->cap = sizeof j->small;
    j->flags = flags;
    j->sink = sink;
    j->ctx = ctx;
}

static inline char *buf(kf_jsonl *j) { return j->heap ? j->heap : j->small; }

static void drop_heap(kf_jsonl *j)
{
    free(j->heap);
    j->heap = NULL;
    j->cap = sizeof j->small;
}

void kf_jsonl_free(kf_jsonl *j)
{
    drop_heap(j);
    j->n = 0;
}

/* Room for n more bytes past what fits now; false (oom set) when there is
 * none to be had. */
static bool grow_slow(kf_jsonl *j, size_t n)
{
    if (j->oom)
        return false;
    size_t cap = j->cap * 2;
    while (cap < j->n + n)
        cap *= 2;
    char *q = j->heap ? realloc(j->heap, cap) : malloc(cap);
    if (!q) {
        j->oom = true;
        return false;
    }
    if (!j->heap)
        memcpy(q, j->small, j->n);
    j->heap = q;
    j->cap = cap;
    return true;
}

static inline bool grow(kf_jsonl *j, size_t n) { return j->n + n <= j->cap || grow_slow(j, n); }

static inline void put(kf_jsonl *j, const char *p, size_t n)
{
    if (!grow(j, n))
        return;
    memcpy(buf(j) + j->n, p, n);
    j->n += n;
}

static inline void putc1(kf_jsonl *j, char c)
{
    if (grow(j, 1))
        buf(j)[j->n++] = c;
}

/* What is built, to the sink; the line's heap memory given back. */
static void hand_over(kf_jsonl *j, unsigned how)
{
    if ((j->n || j->oom) && j->sink)
        j->sink(j->ctx, buf(j), j->n, how | (j->oom ? KF_JSONL_CUT : 0));
    j->n = 0;
    drop_heap(j);
    j->oom = false;
}

void kf_jsonl_flush(kf_jsonl *j) { hand_over(j, 0); }

/* After a value: with KF_JSONL_PIECES, outside a line, it goes out now. */
static void piece(kf_jsonl *j)
{
    if ((j->flags & KF_JSONL_PIECES) && !j->in_line)
        hand_over(j, 0);
}

/* ---- strings ------------------------------------------------------------------ */

size_t kf_utf8_seq(const uint8_t *p, size_t n, uint32_t *cp)
{
    uint8_t c = p[0];
    size_t len;
    uint32_t v;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if ((c & 0xe0) == 0xc0) {
        len = 2;
        v = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
        len = 3;
        v = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
        len = 4;
        v = c & 0x07;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t k = 1; k < len; k++) {
        if ((p[k] & 0xc0) != 0x80)
            return 0;
        v = v << 6 | (p[k] & 0x3f);
    }
    if ((len == 2 && v < 0x80) || (len == 3 && v < 0x800) || (len == 4 && (v < 0x10000 || v > 0x10ffff)) ||
        (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *cp = v;
    return len;
}

bool kf_utf8_valid(const uint8_t *p, size_t n)
{
    uint32_t cp;
    for (size_t i = 0; i < n;) {
        if (p[i] < 0x80) {
            i++;
            continue;
        }
        size_t len = kf_utf8_seq(p + i, n - i, &cp);
        if (!len)
            return false;
        i += len;
    }
    return true;
}

bool kf_unicode_hides(uint32_t cp)
{
    return (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
           cp == 0xfeff || (cp >= 0x80 && cp < 0xa0);
}

static void put_u(kf_jsonl *j, uint32_t cp)
{
    char e[8];
    snprintf(e, sizeof e, "\\u%04" PRIx32, cp);
    put(j, e, 6);
}

/* The bytes copied as they are, a bit per ASCII byte, by mode: printable
 * ASCII but " and \ (--json), and but < > & too (in a script). Every
 * byte from 0x80 up is looked at on its own: kept in a string that is
 * UTF-8 outside a script. */
static const uint64_t PLAIN[2][2] = {
    {0xfffffffb00000000u, 0x7fffffffefffffffu},
    {0xafffffbb00000000u, 0x7fffffffefffffffu},
};

static inline bool plain(const uint64_t *mask, uint8_t c) { return c < 0x80 && (mask[c >> 6] >> (c & 63) & 1); }

static void put_string(kf_jsonl *j, const char *s, size_t n)
{
    if (!s) {
        put(j, "null", 4);
        return;
    }
    const uint8_t *u = (const uint8_t *)s;
    bool script = j->flags & KF_JSONL_SCRIPT;
    const uint64_t *mask = PLAIN[script];
    size_t first = 0; /* the common case, a string with nothing to escape, in one copy */
    while (first < n && plain(mask, u[first]))
        first++;
    if (first == n && grow(j, n + 2)) {
        char *o = buf(j) + j->n;
        o[0] = '"';
        memcpy(o + 1, s, n);
        o[n + 1] = '"';
        j->n += n + 2;
        return;
    }
    /* outside a script, a string that is not UTF-8 has every byte from
     * 0x80 up replaced; inside one, each byte that starts no sequence */
    bool whole = script || kf_utf8_valid(u + first, n - first);
    bool keep_high = whole && !script;
    putc1(j, '"');
    for (size_t i = 0; i < n;) {
        size_t run = i;
        while (run < n && (plain(mask, u[run]) || (u[run] >= 0x80 && keep_high)))
            run++;
        if (run > i) { /* the plain run in one copy */
            put(j, s + i, run - i);
            i = run;
            continue;
        }
        uint8_t c = u[i];
        if (c < 0x80) {
            i++;
            if (c == '"' || c == '\\') {
                char e[2] = {'\\', (char)c};
                put(j, e, 2);
            } else if (whole && (c == '\n' || c == '\r' || c == '\t')) {
                /* named, but in a string that is not UTF-8 */
                put(j, c == '\n' ? "\\n" : c == '\r' ? "\\r" : "\\t", 2);
            } else {
                put_u(j, c);
            }
            continue;
        }
        uint32_t cp;
        size_t len = whole ? kf_utf8_seq(u + i, n - i, &cp) : 0;
        if (!len) {
            put(j, "\\ufffd", 6);
            i++;
        } else if (kf_unicode_hides(cp)) {
            put_u(j, cp);
            i += len;
        } else {
            put(j, s + i, len);
            i += len;
        }
    }
    putc1(j, '"');
}

/* ---- values ------------------------------------------------------------------- */

void kf_jsonl_key(kf_jsonl *j, const char *key)
{
    if (j->comma)
        putc1(j, ',');
    j->comma = true;
    if (key) {
        put_string(j, key, strlen(key));
        putc1(j, ':');
    }
    piece(j);
}

/* `"key":` and a word already formatted (a number, true, null...). */
static void put_field(kf_jsonl *j, const char *key, const char *word, size_t wl)
{
    kf_jsonl_key(j, key);
    put(j, word, wl);
    piece(j);
}

void kf_jsonl_begin(kf_jsonl *j, const char *type)
{
    j->n = 0;
    j->in_line = true;
    putc1(j, '{');
    j->comma = false;
    kf_jsonl_str(j, "type", type);
}

static void end(kf_jsonl *j, unsigned how)
{
    put(j, "}\n", 2);
    j->comma = false;
    j->in_line = false;
    hand_over(j, how);
}

void kf_jsonl_end(kf_jsonl *j) { end(j, KF_JSONL_LINE); }
void kf_jsonl_end_summary(kf_jsonl *j) { end(j, KF_JSONL_LINE | KF_JSONL_SUMMARY); }

/* The decimal digits of v ending at end: where they start. */
static char *digits(uint64_t v, char *end)
{
    char *p = end;
    do
        *--p = (char)('0' + v % 10);
    while (v /= 10);
    return p;
}

void kf_jsonl_int(kf_jsonl *j, const char *key, int64_t v)
{
    char num[21], *e = num + sizeof num;
    char *p = digits(v < 0 ? 0 - (uint64_t)v : (uint64_t)v, e);
    if (v < 0)
        *--p = '-';
    put_field(j, key, p, (size_t)(e - p));
}

void kf_jsonl_uint(kf_jsonl *j, const char *key, uint64_t v)
{
    char num[20], *e = num + sizeof num;
    char *p = digits(v, e);
    put_field(j, key, p, (size_t)(e - p));
}

void kf_jsonl_null(kf_jsonl *j, const char *key) { put_field(j, key, "null", 4); }

void kf_jsonl_opt_int(kf_jsonl *j, const char *key, bool has, int64_t v)
{
    if (has)
        kf_jsonl_int(j, key, v);
    else
        kf_jsonl_null(j, key);
}

void kf_jsonl_bool(kf_jsonl *j, const char *key, bool v) { put_field(j, key, v ? "true" : "false", v ? 4 : 5); }

void kf_jsonl_double(kf_jsonl *j, const char *key, double v)
{
    char num[32];
    int k = snprintf(num, sizeof num, "%.17g", v);
    put_field(j, key, num, k > 0 ? (size_t)k : 0);
}

void kf_jsonl_strn(kf_jsonl *j, const char *key, const char *s, size_t n)
{
    kf_jsonl_key(j, key);
    put_string(j, s, n);
    piece(j);
}

void kf_jsonl_str(kf_jsonl *j, const char *key, const char *s) { kf_jsonl_strn(j, key, s, s ? strlen(s) : 0); }

void kf_jsonl_b64(kf_jsonl *j, const char *key, const uint8_t *p, size_t n)
{
    static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    kf_jsonl_key(j, key);
    if (!p && n) {
        put(j, "null", 4);
        piece(j);
        return;
    }
    if (!grow(j, (n + 2) / 3 * 4 + 2))
        return;
    char *o = buf(j) + j->n;
    *o++ = '"';
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        *o++ = B64[v >> 18];
        *o++ = B64[(v >> 12) & 63];
        *o++ = B64[(v >> 6) & 63];
        *o++ = B64[v & 63];
    }
    if (n - i) {
        uint32_t v = (uint32_t)p[i] << 16 | (n - i == 2 ? (uint32_t)p[i + 1] << 8 : 0);
        *o++ = B64[v >> 18];
        *o++ = B64[(v >> 12) & 63];
        *o++ = n - i == 2 ? B64[(v >> 6) & 63] : '=';
        *o++ = '=';
    }
    *o++ = '"';
    j->n = (size_t)(o - buf(j));
    piece(j);
}

void kf_jsonl_int32s(kf_jsonl *j, const char *key, bool has, const int32_t *v, size_t n)
{
    if (!has) {
        kf_jsonl_null(j, key);
        return;
    }
    kf_jsonl_arr_open(j, key);
    for (size_t i = 0; i < n; i++)
        kf_jsonl_int(j, NULL, v[i]);
    kf_jsonl_arr_close(j);
}

void kf_jsonl_fieldv(kf_jsonl *j, const kf_jsonl_field *f, size_t n)
{
    for (size_t i = 0; i < n; i++, f++) {
        switch (f->kind) {
        case KF_JF_INT: kf_jsonl_int(j, f->key, f->v.i); break;
        case KF_JF_UINT: kf_jsonl_uint(j, f->key, f->v.u); break;
        case KF_JF_OPT_INT: kf_jsonl_opt_int(j, f->key, f->has, f->v.i); break;
        case KF_JF_BOOL: kf_jsonl_bool(j, f->key, f->v.b); break;
        case KF_JF_DOUBLE: kf_jsonl_double(j, f->key, f->v.d); break;
        case KF_JF_STR: kf_jsonl_str(j, f->key, f->v.s); break;
        case KF_JF_NULL: kf_jsonl_null(j, f->key); break;
        }
    }
}

/* A container's opening or closing bracket. */
static void open_with(kf_jsonl *j, const char *key, char bracket)
{
    kf_jsonl_key(j, key);
    putc1(j, bracket);
    j->comma = false;
    piece(j);
}

static void close_with(kf_jsonl *j, char bracket)
{
    putc1(j, bracket);
    j->comma = true;
    piece(j);
}

void kf_jsonl_obj_open(kf_jsonl *j, const char *key) { open_with(j, key, '{'); }
void kf_jsonl_obj_close(kf_jsonl *j) { close_with(j, '}'); }
void kf_jsonl_arr_open(kf_jsonl *j, const char *key) { open_with(j, key, '['); }
void kf_jsonl_arr_close(kf_jsonl *j) { close_with(j, ']'); }

void kf_jsonl_raw(kf_jsonl *j, const char *p, size_t n)
{
    put(j, p, n);
    piece(j);
}
