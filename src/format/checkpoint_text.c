/* checkpoint_text.c: the text helpers of the small files' parsers
 * (checkpoint_text.h): Integer/Long.parseInt, excerpts of a line for
 * messages, reasons into a caller's buffer. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "format/checkpoint_text.h"

void kf_text_set_msg(char *msg, size_t msglen, const char *fmt, ...)
{
    if (!msg || msglen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msglen, fmt, ap);
    va_end(ap);
}

/* Integer.parseInt / Long.parseLong on ASCII: optional sign, then digits,
 * nothing else, in [min, max]. */
bool kf_text_parse_int(const uint8_t *p, size_t n, int64_t min, int64_t max, int64_t *out)
{
    size_t i = 0;
    bool neg = false;
    if (n == 0)
        return false;
    if (p[0] == '-' || p[0] == '+') {
        neg = p[0] == '-';
        i = 1;
        if (n == 1)
            return false;
    }
    uint64_t limit = neg ? (uint64_t)(-(min + 1)) + 1 : (uint64_t)max;
    uint64_t v = 0;
    for (; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return false;
        unsigned dgt = (unsigned)(p[i] - '0');
        if (v > (limit - dgt) / 10)
            return false;
        v = v * 10 + dgt;
    }
    if (!neg)
        *out = (int64_t)v;
    else
        *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    return true;
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
