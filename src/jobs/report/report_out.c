/* report_out.c: the report's bounded text buffers and the escapes of text
 * from the data for each place it goes in the page: HTML text and
 * attributes (SVG's too) and a data: URL (report_internal.h; the JSON
 * inside a <script> element is the JSON-lines writer's, KF_JSONL_SCRIPT). Names on a damaged disk are any bytes: the
 * escapes never let them close an element, open one, start a script or
 * hide what they are. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/report/report_internal.h"

void rb_init(rbuf *b, size_t limit)
{
    memset(b, 0, sizeof *b);
    b->limit = limit;
}

void rb_free(rbuf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

bool rb_room(const rbuf *b, size_t n) { return b->n + n <= b->limit; }

void rb_put(rbuf *b, const void *p, size_t n)
{
    if (b->oom || !n)
        return;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n)
            cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q) {
            b->oom = true;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

void rb_puts(rbuf *b, const char *s) { rb_put(b, s, strlen(s)); }

void rb_printf(rbuf *b, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (k < 0)
        return;
    if ((size_t)k < sizeof small) {
        rb_put(b, small, (size_t)k);
        return;
    }
    char *big = malloc((size_t)k + 1);
    if (!big) {
        b->oom = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)k + 1, fmt, ap);
    va_end(ap);
    rb_put(b, big, (size_t)k);
    free(big);
}

/* Where the run of printable ASCII bytes none of which is in stops, from
 * u[i], ends (copied as it is by the escapes below). */
static size_t plain_run(const unsigned char *u, size_t i, size_t n, const char *stops)
{
    while (i < n && u[i] >= 0x20 && u[i] < 0x7f && !strchr(stops, u[i]))
        i++;
    return i;
}

void rb_textn(rbuf *b, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        size_t run = plain_run(u, i, n, "&<>\"'");
        if (run > i) {
            rb_put(b, s + i, run - i);
            i = run;
            continue;
        }
        unsigned char c = u[i];
        switch (c) {
        case '&': rb_puts(b, "&amp;"); i++; continue;
        case '<': rb_puts(b, "&lt;"); i++; continue;
        case '>': rb_puts(b, "&gt;"); i++; continue;
        case '"': rb_puts(b, "&quot;"); i++; continue;
        case '\'': rb_puts(b, "&#39;"); i++; continue;
        default: break;
        }
        uint32_t cp;
        size_t len = c >= 0x80 ? kf_utf8_seq(u + i, n - i, &cp) : 0;
        if (len && !kf_unicode_hides(cp)) {
            rb_put(b, s + i, len);
            i += len;
        } else if (len) {
            rb_printf(b, "\\u{%04" PRIx32 "}", cp);
            i += len;
        } else {
            rb_printf(b, "\\x%02x", c);
            i++;
        }
    }
}

void rb_text(rbuf *b, const char *s)
{
    if (s)
        rb_textn(b, s, strlen(s));
}

void rb_percent(rbuf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
            c == '_' || c == '~') {
            rb_put(b, &s[i], 1);
        } else {
            char e[3] = {'%', hex[c >> 4], hex[c & 15]};
            rb_put(b, e, 3);
        }
    }
}

void fmt_count(int64_t v, char *buf, size_t n)
{
    char digits[32];
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    int k = snprintf(digits, sizeof digits, "%" PRIu64, u);
    size_t o = 0;
    if (v < 0 && o + 1 < n)
        buf[o++] = '-';
    for (int i = 0; i < k && o + 1 < n; i++) {
        if (i && (k - i) % 3 == 0 && o + 1 < n)
            buf[o++] = ',';
        if (o + 1 < n)
            buf[o++] = digits[i];
    }
    buf[o] = 0;
}

void fmt_size(uint64_t v, char *buf, size_t n) { kf_format_bytes(v, "B", buf, n); }
