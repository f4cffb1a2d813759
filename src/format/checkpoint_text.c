/* checkpoint_text.c: the text helpers of the small files' parsers
 * (checkpoint_text.h): Integer/Long.parseInt, excerpts of a line for
 * messages, reasons into a caller's buffer, and the lines of a file read in
 * pieces. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
#include "kfsck/common.h"
#include "kfsck/sys/names.h"

#include "format/checkpoint_text.h"

/* Integer.parseInt / Long.parseLong on ASCII: optional sign, then digits,
 * nothing else (kf_java_long), in [min, max]. */
bool kf_text_parse_int(const uint8_t *p, size_t n, int64_t min, int64_t max, int64_t *out)
{
    int64_t v;
    if (!kf_java_long((const char *)p, n, &v) || v < min || v > max)
        return false;
    *out = v;
    return true;
}

size_t kf_text_utf8(uint32_t cp, uint8_t u[4])
{
    if (cp < 0x80) {
        u[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        u[0] = (uint8_t)(0xc0 | cp >> 6);
        u[1] = (uint8_t)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        u[0] = (uint8_t)(0xe0 | cp >> 12);
        u[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
        u[2] = (uint8_t)(0x80 | (cp & 0x3f));
        return 3;
    }
    u[0] = (uint8_t)(0xf0 | cp >> 18);
    u[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
    u[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
    u[3] = (uint8_t)(0x80 | (cp & 0x3f));
    return 4;
}

/* A printable excerpt of a line for messages ("..." when cut). */
void kf_text_excerpt(const uint8_t *p, uint64_t n, char *out, size_t cap)
{
    size_t o = 0;
    uint64_t i = 0;
    for (; i < n; i++) {
        char tmp[8];
        size_t k;
        uint8_t ch = p[i];
        if (ch >= 0x20 && ch < 0x7f) {
            tmp[0] = (char)ch;
            k = 1;
        } else {
            k = (size_t)snprintf(tmp, sizeof tmp, "\\x%02x", ch);
        }
        if (o + k + 4 > cap)
            break;
        memcpy(out + o, tmp, k);
        o += k;
    }
    if (i < n) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = 0;
}

/* ---- the lines of a file read in pieces ------------------------------------ */

void kf_text_stream_memory(kf_text_stream *t, const uint8_t *data, uint64_t size)
{
    memset(t, 0, sizeof *t);
    t->d = data;
    t->n = data ? (size_t)size : 0;
    t->eof = true;
}

int kf_text_stream_source(kf_text_stream *t, kf_source *src)
{
    memset(t, 0, sizeof *t);
    t->src = src;
    if (!(t->buf = malloc(KF_TEXT_STREAM_BUF)))
        return kf_error_nomem();
    t->d = t->buf;
    return KF_OK;
}

void kf_text_stream_free(kf_text_stream *t)
{
    free(t->buf);
    t->buf = NULL;
    t->d = NULL;
}

/* Reads on after the bytes held; keep: the bytes from t->at on stay (moved
 * to the front), else all are dropped. False when nothing more came. */
static bool refill(kf_text_stream *t, bool keep)
{
    if (t->eof)
        return false;
    size_t keep_from = keep ? t->at : t->n;
    memmove(t->buf, t->buf + keep_from, t->n - keep_from);
    t->base += keep_from;
    t->n -= keep_from;
    t->at = 0;
    size_t room = KF_TEXT_STREAM_BUF - t->n;
    int64_t got = kf_source_pread(t->src, t->base + t->n, t->buf + t->n, room);
    if (got < 0) {
        t->failed = true;
        t->err_no = errno;
        t->eof = true;
        return false;
    }
    if ((size_t)got < room) /* the end (or the file shrank: what is there) */
        t->eof = true;
    t->n += (size_t)got;
    return got > 0;
}

static size_t line_end(const kf_text_stream *t, size_t i)
{
    while (i < t->n && t->d[i] != '\n' && t->d[i] != '\r')
        i++;
    return i;
}

/* The next line starts after the terminator at i (or at i, the end). */
static void next_line_at(kf_text_stream *t, size_t i)
{
    if (i < t->n) {
        t->skip_lf = t->d[i] == '\r';
        i++;
    }
    t->at = i;
}

static void sq_put(kf_text_stream *t, uint8_t c)
{
    if (t->sq_len < KF_TEXT_SQUEEZED)
        t->sq[t->sq_len++] = c;
    else
        t->sq_over = true;
}

/* One more byte of a long line into its squeezed form: a run of leading
 * zeros (after an optional sign) becomes one zero, which changes neither the
 * value Integer.parseInt gives nor whether it gives one. */
static void sq_feed(kf_text_stream *t, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t c = p[i];
        if (t->sq_state == 0) {
            t->sq_state = 1;
            if (c == '+' || c == '-') {
                sq_put(t, c);
                continue;
            }
        }
        if (t->sq_state == 1) {
            if (c == '0') {
                t->sq_zero = true;
                continue;
            }
            if (t->sq_zero)
                sq_put(t, '0');
            t->sq_state = 2;
        }
        sq_put(t, c);
    }
}

/* A line that fills the whole buffer (it starts at d[0]): read to its end,
 * keeping its head and its squeezed form. */
static bool long_line(kf_text_stream *t, kf_text_line *line)
{
    uint64_t start = t->base;
    memcpy(t->head, t->d, KF_TEXT_HEAD);
    t->sq_state = 0;
    t->sq_zero = t->sq_over = false;
    t->sq_len = 0;
    sq_feed(t, t->d, t->n);
    uint64_t len = t->n;
    size_t i = t->n;
    t->at = t->n;
    while (refill(t, false)) {
        i = line_end(t, 0);
        sq_feed(t, t->d, i);
        len += i;
        if (i < t->n)
            break;
    }
    if (t->failed)
        return false;
    if (i > t->n)
        i = t->n;
    if (t->sq_state <= 1 && t->sq_zero)
        sq_put(t, '0');
    *line = (kf_text_line){start, len, t->head, false, t->sq, t->sq_len, t->sq_over};
    next_line_at(t, i);
    return true;
}

bool kf_text_stream_next(kf_text_stream *t, kf_text_line *line)
{
    if (t->skip_lf) {
        if (t->at == t->n)
            refill(t, false);
        if (t->at < t->n && t->d[t->at] == '\n')
            t->at++;
        t->skip_lf = false;
    }
    if (t->at == t->n && !refill(t, false))
        return false;
    size_t i = line_end(t, t->at);
    while (i == t->n && !t->eof) { /* the line goes on past the bytes held */
        if (t->at == 0 && t->n == KF_TEXT_STREAM_BUF)
            return long_line(t, line);
        size_t seen = i - t->at;
        if (!refill(t, true) && t->failed)
            return false;
        i = line_end(t, seen);
    }
    *line = (kf_text_line){.start = t->base + t->at, .len = i - t->at, .p = t->d + t->at, .whole = true};
    next_line_at(t, i);
    return true;
}

bool kf_text_line_int(const kf_text_line *line, int64_t min, int64_t max, int64_t *out)
{
    if (line->whole)
        return kf_text_parse_int(line->p, (size_t)line->len, min, max, out);
    return !line->squeezed_over && kf_text_parse_int(line->squeezed, line->squeezed_len, min, max, out);
}

void kf_text_line_excerpt(const kf_text_line *line, char *out, size_t cap)
{
    kf_text_excerpt(line->p, line->whole ? line->len : KF_TEXT_HEAD, out, cap);
}
