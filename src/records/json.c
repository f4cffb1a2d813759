/* json.c: a strict JSON scanner (RFC 8259; nesting capped at 64), for the
 * JSON that Kafka Connect stores in its offsets topic: kfsck copies those
 * bytes into its own JSON output, so they must be exactly one JSON value.
 *
 * The one JSON kfsck reads without Jansson, for three reasons: what is
 * needed is where the connector name and the partition object lie in a
 * key, to copy their bytes through exactly, and Jansson gives values, not
 * spans (and writing them back would change the bytes: number forms,
 * escapes, spaces); Jansson refuses valid JSON (RFC 8259) that Jackson,
 * which Connect reads its offsets with, accepts (integers past 64 bits,
 * reals past a double such as 1e400, a lone surrogate escape \ud800: "too
 * big integer", "real number overflow", "invalid Unicode"), which would
 * lose such a record; and a tree per record would be allocated for
 * nothing. It only validates and finds spans, and allocates nothing. */
#include "records/json.h"

#include <stdbool.h>
#include <string.h>

static size_t ws(const uint8_t *p, size_t n, size_t i)
{
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
        i++;
    return i;
}

static size_t json_value(const uint8_t *p, size_t n, size_t i, int depth);

/* Returns the index after the string at i, or 0 on error. */
static size_t json_string(const uint8_t *p, size_t n, size_t i)
{
    if (i >= n || p[i] != '"')
        return 0;
    for (i++; i < n; i++) {
        if (p[i] == '"')
            return i + 1;
        if (p[i] < 0x20)
            return 0;
        if (p[i] == '\\') {
            if (++i >= n)
                return 0;
            if (p[i] == 'u') {
                for (int k = 1; k <= 4; k++)
                    if (i + (size_t)k >= n || !strchr("0123456789abcdefABCDEF", p[i + (size_t)k]) || !p[i + (size_t)k])
                        return 0;
                i += 4;
            } else if (!strchr("\"\\/bfnrt", p[i]) || !p[i]) {
                return 0;
            }
        }
    }
    return 0;
}

/* The index after the run of one or more digits at i, or 0 when there is
 * no digit at i. */
static size_t json_digits(const uint8_t *p, size_t n, size_t i)
{
    size_t d = i;
    while (i < n && p[i] >= '0' && p[i] <= '9')
        i++;
    return i > d ? i : 0;
}

static size_t json_number(const uint8_t *p, size_t n, size_t i)
{
    if (i < n && p[i] == '-')
        i++;
    i = json_digits(p, n, i);
    if (i && i < n && p[i] == '.')
        i = json_digits(p, n, i + 1);
    if (i && i < n && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        if (i < n && (p[i] == '+' || p[i] == '-'))
            i++;
        i = json_digits(p, n, i);
    }
    return i;
}

static size_t json_container(const uint8_t *p, size_t n, size_t i, int depth, bool object)
{
    char close = object ? '}' : ']';
    i = ws(p, n, i + 1);
    if (i < n && p[i] == close)
        return i + 1;
    for (;;) {
        if (object) {
            i = json_string(p, n, i);
            if (!i)
                return 0;
            i = ws(p, n, i);
            if (i >= n || p[i] != ':')
                return 0;
            i = ws(p, n, i + 1);
        }
        i = json_value(p, n, i, depth + 1);
        if (!i)
            return 0;
        i = ws(p, n, i);
        if (i < n && p[i] == ',') {
            i = ws(p, n, i + 1);
            continue;
        }
        if (i < n && p[i] == close)
            return i + 1;
        return 0;
    }
}

static size_t json_value(const uint8_t *p, size_t n, size_t i, int depth)
{
    if (depth > 64 || i >= n)
        return 0;
    switch (p[i]) {
    case '{': return json_container(p, n, i, depth, true);
    case '[': return json_container(p, n, i, depth, false);
    case '"': return json_string(p, n, i);
    case 't': return n - i >= 4 && !memcmp(p + i, "true", 4) ? i + 4 : 0;
    case 'f': return n - i >= 5 && !memcmp(p + i, "false", 5) ? i + 5 : 0;
    case 'n': return n - i >= 4 && !memcmp(p + i, "null", 4) ? i + 4 : 0;
    default: return json_number(p, n, i);
    }
}

static bool json_whole(const uint8_t *p, size_t n, bool want_object)
{
    size_t i = ws(p, n, 0);
    if (want_object && (i >= n || p[i] != '{'))
        return false;
    size_t e = json_value(p, n, i, 0);
    return e && ws(p, n, e) == n;
}

bool kf_json_valid(const uint8_t *p, size_t n) { return json_whole(p, n, false); }

bool kf_json_object_valid(const uint8_t *p, size_t n) { return json_whole(p, n, true); }

/* key `[ "connector", {partition} ]`: connector string span and partition span */
bool kf_connect_key_parse(const uint8_t *p, size_t n, size_t *cs, size_t *ce, size_t *ps, size_t *pe)
{
    size_t i = ws(p, n, 0);
    if (i >= n || p[i] != '[')
        return false;
    i = ws(p, n, i + 1);
    *cs = i;
    *ce = json_string(p, n, i);
    if (!*ce)
        return false;
    i = ws(p, n, *ce);
    if (i >= n || p[i] != ',')
        return false;
    i = ws(p, n, i + 1);
    if (i >= n || p[i] != '{')
        return false;
    *ps = i;
    *pe = json_value(p, n, i, 1);
    if (!*pe)
        return false;
    i = ws(p, n, *pe);
    return i < n && p[i] == ']' && ws(p, n, i + 1) == n;
}

