/* server_properties.c: Java properties files, read the way
 * java.util.Properties.load(InputStream) reads them (its LineReader, then
 * the key/value split and the escape conversion of load0/loadConvert;
 * include/kfsck/sys/server_properties.h, docs/formats.md §20.1). One logical
 * line is held at a time, in a buffer that grows up to
 * KF_PROPERTIES_LINE_MAX. */
#include "kfsck/sys/server_properties.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
#include "format/checkpoint_text.h"

static bool blank(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\f';
}

/* A growable byte buffer capped at KF_PROPERTIES_LINE_MAX. */
typedef struct buf {
    char *p;
    size_t n, cap;
} buf;

static int buf_put(buf *b, const void *src, size_t n)
{
    if (b->n + n > KF_PROPERTIES_LINE_MAX)
        return KF_ERR_TOO_BIG;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n)
            cap *= 2;
        if (cap > KF_PROPERTIES_LINE_MAX)
            cap = KF_PROPERTIES_LINE_MAX;
        char *np = realloc(b->p, cap);
        if (!np)
            return kf_error_nomem();
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
    return KF_OK;
}

static int hexval(uint8_t c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int put_utf8(buf *b, uint32_t cp)
{
    uint8_t u[4];
    size_t n = kf_text_utf8(cp, u);
    return buf_put(b, u, n);
}

/* The \uXXXX at s[i] (s[i] is 'u'): its code unit, or -1 when malformed. */
static int32_t u_escape(const uint8_t *s, size_t i, size_t n)
{
    if (n - i < 5)
        return -1;
    int32_t v = 0;
    for (size_t k = 1; k <= 4; k++) {
        int h = hexval(s[i + k]);
        if (h < 0)
            return -1;
        v = v << 4 | h;
    }
    return v;
}

/* loadConvert: s[0..n) with its escapes undone, into out. */
static int unescape(const uint8_t *s, size_t n, buf *out)
{
    out->n = 0;
    int rc = KF_OK;
    for (size_t i = 0; i < n && rc == KF_OK;) {
        uint8_t c = s[i++];
        if (c != '\\') {
            rc = buf_put(out, &c, 1);
            continue;
        }
        if (i == n)
            break; /* a lone backslash at the end: LineReader drops it */
        c = s[i];
        if (c != 'u') {
            uint8_t m = c == 't' ? '\t' : c == 'r' ? '\r' : c == 'n' ? '\n' : c == 'f' ? '\f' : c;
            rc = buf_put(out, &m, 1);
            i++;
            continue;
        }
        int32_t u = u_escape(s, i, n);
        if (u < 0)
            return KF_ERR_CORRUPT;
        i += 5;
        uint32_t cp = (uint32_t)u;
        if (cp >= 0xd800 && cp < 0xdc00 && i + 1 < n && s[i] == '\\' && s[i + 1] == 'u') {
            int32_t lo = u_escape(s, i + 1, n);
            if (lo >= 0xdc00 && lo < 0xe000) {
                cp = 0x10000 + ((cp - 0xd800) << 10) + ((uint32_t)lo - 0xdc00);
                i += 6;
            }
        }
        if (cp >= 0xd800 && cp < 0xe000)
            cp = 0xfffd; /* a lone surrogate has no UTF-8 form */
        rc = put_utf8(out, cp);
    }
    return rc;
}

/* load0: one logical line split into key and value, each unescaped. */
static int emit(const buf *line, buf *k, buf *v, kf_property_fn fn, void *ctx)
{
    const uint8_t *s = (const uint8_t *)line->p;
    size_t n = line->n, key_len = 0, value_start = n;
    bool has_sep = false, backslash = false;
    while (key_len < n) {
        uint8_t c = s[key_len];
        if ((c == '=' || c == ':') && !backslash) {
            value_start = key_len + 1;
            has_sep = true;
            break;
        }
        if (blank(c) && !backslash) {
            value_start = key_len + 1;
            break;
        }
        backslash = c == '\\' ? !backslash : false;
        key_len++;
    }
    while (value_start < n) {
        uint8_t c = s[value_start];
        if (!blank(c)) {
            if (!has_sep && (c == '=' || c == ':'))
                has_sep = true;
            else
                break;
        }
        value_start++;
    }
    int rc = unescape(s, key_len, k);
    if (rc == KF_OK)
        rc = unescape(s + value_start, n - value_start, v);
    if (rc == KF_OK && fn)
        rc = fn(ctx, k->n ? k->p : "", k->n, v->n ? v->p : "", v->n);
    return rc;
}

int kf_properties_parse(const uint8_t *data, size_t size, kf_property_fn fn, void *ctx, uint64_t *line)
{
    buf ln = {0}, k = {0}, v = {0};
    int rc = KF_OK;
    uint64_t natural = 1, start_line = 1;
    bool skip_blank = true, new_line = true, comment = false, backslash = false, appended = false,
         skip_lf = false;
    size_t i = 0;
    if (!data)
        size = 0;
    for (; i < size && rc == KF_OK; i++) {
        uint8_t c = data[i];
        if (skip_lf) {
            skip_lf = false;
            if (c == '\n')
                continue;
        }
        if (skip_blank) {
            if (blank(c))
                continue;
            if (!appended && (c == '\r' || c == '\n')) {
                natural++;
                if (c == '\r')
                    skip_lf = true;
                continue;
            }
            skip_blank = false;
            appended = false;
        }
        if (new_line) {
            new_line = false;
            start_line = natural;
            if (c == '#' || c == '!') {
                comment = true;
                continue;
            }
        }
        if (c != '\n' && c != '\r') {
            if (!comment)
                rc = buf_put(&ln, &c, 1);
            backslash = c == '\\' ? !backslash : false;
            continue;
        }
        natural++;
        if (c == '\r')
            skip_lf = true;
        if (comment || ln.n == 0) {
            comment = false;
            new_line = true;
            skip_blank = true;
            backslash = false;
            ln.n = 0;
            continue;
        }
        if (backslash) {
            ln.n--; /* the continuation's backslash */
            skip_blank = true;
            appended = true;
            backslash = false;
            continue;
        }
        rc = emit(&ln, &k, &v, fn, ctx);
        ln.n = 0;
        new_line = true;
        skip_blank = true;
    }
    if (rc == KF_OK && ln.n && !comment) {
        if (backslash)
            ln.n--;
        rc = emit(&ln, &k, &v, fn, ctx);
    }
    if (rc != KF_OK && line)
        *line = start_line;
    free(ln.p);
    free(k.p);
    free(v.p);
    return rc;
}
