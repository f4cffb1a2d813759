/* json_text.c: JSON produced by kfsck itself, printed as indented,
 * human-readable text (for commands whose records are nested, like
 * `groups`): "key: value" lines, nested objects indented, arrays of scalars
 * inline as [a, b], arrays of objects as "- " items, null as "-", a time
 * in ms (ms_key) as its ms and UTC ISO 8601, a duration in ms as its ms
 * and in units (30s, 5m00s). The input
 * is our own writer's output, but the reader still stops cleanly at the end
 * of the text whatever it holds. */
#include "cli/json_text.h"

#include <stdlib.h>
#include <string.h>

#include "cli/out.h"

typedef struct jt {
    const char *p, *end;
    FILE *f;
} jt;

static void ws(jt *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' || *j->p == '\r'))
        j->p++;
}

static void indent(FILE *f, int n)
{
    for (int i = 0; i < n; i++)
        fputs("  ", f);
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The code unit of a \uXXXX at p (p at the 'u'), or -1. */
static int32_t unit_at(const jt *j, const char *p)
{
    if (j->end - p < 5 || *p != 'u')
        return -1;
    int32_t v = 0;
    for (int i = 1; i <= 4; i++) {
        int h = hexval(p[i]);
        if (h < 0)
            return -1;
        v = v << 4 | h;
    }
    return v;
}

/* Print a string's content decoded (a newline or tab as a space), by the
 * one escaping rule (escape.h): a name's control characters never reach
 * the terminal, whatever the JSON held. */
static void string(jt *j)
{
    j->p++; /* opening quote */
    const char *run = j->p;
    while (j->p < j->end && *j->p != '"') {
        if (*j->p != '\\' || j->p + 1 >= j->end) {
            j->p++;
            continue;
        }
        esc_write(j->f, run, (size_t)(j->p - run));
        char c = j->p[1];
        j->p += 2;
        int32_t cp = c == 'u' ? unit_at(j, j->p - 1) : -1;
        if (cp >= 0) {
            j->p += 4;
            if (cp >= 0xd800 && cp <= 0xdbff && j->end - j->p >= 6 && j->p[0] == '\\') {
                int32_t lo = unit_at(j, j->p + 1);
                if (lo >= 0xdc00 && lo <= 0xdfff) {
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    j->p += 6;
                }
            }
            if (cp >= 0xd800 && cp <= 0xdfff)
                cp = 0xfffd;
            char u[4];
            size_t n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            if (n == 1)
                u[0] = (char)cp;
            else if (n == 2) {
                u[0] = (char)(0xc0 | cp >> 6);
                u[1] = (char)(0x80 | (cp & 0x3f));
            } else if (n == 3) {
                u[0] = (char)(0xe0 | cp >> 12);
                u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
                u[2] = (char)(0x80 | (cp & 0x3f));
            } else {
                u[0] = (char)(0xf0 | cp >> 18);
                u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
                u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
                u[3] = (char)(0x80 | (cp & 0x3f));
            }
            esc_write(j->f, u, n);
        } else {
            char d = c == 'n' || c == 't' ? ' ' : c == 'r' ? '\r' : c == 'b' ? '\b' : c == 'f' ? '\f' : c;
            esc_write(j->f, &d, 1);
        }
        run = j->p;
    }
    esc_write(j->f, run, (size_t)(j->p - run));
    if (j->p < j->end)
        j->p++;
}

static void scalar(jt *j)
{
    if (j->p < j->end && *j->p == '"') {
        string(j);
        return;
    }
    const char *s = j->p;
    while (j->p < j->end && !strchr(",]} \n", *j->p))
        j->p++;
    if (j->p - s == 4 && !memcmp(s, "null", 4))
        fputc('-', j->f);
    else
        fwrite(s, 1, (size_t)(j->p - s), j->f);
}

/* does the array starting at j->p hold only scalars? */
static bool flat_array(const jt *j)
{
    bool in_str = false;
    for (const char *q = j->p + 1; q < j->end; q++) {
        if (in_str) {
            if (*q == '\\')
                q++;
            else if (*q == '"')
                in_str = false;
            continue;
        }
        if (*q == '"')
            in_str = true;
        else if (*q == '{' || *q == '[')
            return false;
        else if (*q == ']')
            return true;
    }
    return true;
}

static void value(jt *j, int level);

static bool ends_with(const char *k, size_t n, const char *suffix)
{
    size_t m = strlen(suffix);
    return n >= m && !memcmp(k + n - m, suffix, m);
}

/* What a key [k, k + n) names in milliseconds: a time since the epoch
 * ("timestamp", a name ending in "_timestamp" or "_time_ms"), a duration
 * (ending in "_timeout" or "_timeout_ms"), or neither. */
enum { MS_NONE, MS_TIME, MS_DURATION };
static int ms_key(const char *k, size_t n)
{
    if ((n == 9 && !memcmp(k, "timestamp", 9)) || ends_with(k, n, "_timestamp") || ends_with(k, n, "_time_ms"))
        return MS_TIME;
    if (ends_with(k, n, "_timeout") || ends_with(k, n, "_timeout_ms"))
        return MS_DURATION;
    return MS_NONE;
}

/* Such a value: the ms as written, then the UTC time or the duration in
 * units when it is a non-negative integer (-1 and null stay as they are). */
static void ms_value(jt *j, int level, int kind)
{
    const char *s = j->p;
    value(j, level);
    char digits[24];
    size_t n = (size_t)(j->p - s);
    if (n == 0 || n >= sizeof digits || strspn(s, "0123456789") < n)
        return;
    memcpy(digits, s, n);
    digits[n] = 0;
    char text[40];
    if (kind == MS_TIME)
        fmt_time_utc(strtoll(digits, NULL, 10), text, sizeof text);
    else
        fmt_duration(strtoll(digits, NULL, 10), text, sizeof text);
    tprintf(j->f, " (%s)", text);
}

static void object_body(jt *j, int level, bool first_inline)
{
    j->p++; /* { */
    ws(j);
    bool first = true;
    while (j->p < j->end && *j->p != '}') {
        if (!(first && first_inline))
            indent(j->f, level);
        first = false;
        if (*j->p != '"')
            break;
        const char *key = j->p + 1;
        string(j);
        size_t key_len = (size_t)(j->p - 1 - key);
        ws(j);
        if (j->p < j->end && *j->p == ':')
            j->p++;
        ws(j);
        fputc(':', j->f);
        if (j->p < j->end && *j->p == '{') {
            fputc('\n', j->f);
            object_body(j, level + 1, false);
        } else if (j->p < j->end && *j->p == '[' && !flat_array(j)) {
            fputc('\n', j->f);
            value(j, level + 1);
        } else if (ms_key(key, key_len) != MS_NONE) {
            fputc(' ', j->f);
            ms_value(j, level, ms_key(key, key_len));
            fputc('\n', j->f);
        } else {
            fputc(' ', j->f);
            value(j, level);
            fputc('\n', j->f);
        }
        ws(j);
        if (j->p < j->end && *j->p == ',')
            j->p++;
        ws(j);
    }
    if (j->p < j->end)
        j->p++;
}

static void value(jt *j, int level)
{
    ws(j);
    if (j->p >= j->end)
        return;
    if (*j->p == '{') {
        object_body(j, level, false);
    } else if (*j->p == '[' && flat_array(j)) {
        j->p++;
        fputc('[', j->f);
        ws(j);
        bool first = true;
        while (j->p < j->end && *j->p != ']') {
            if (!first)
                fputs(", ", j->f);
            first = false;
            scalar(j);
            ws(j);
            if (j->p < j->end && *j->p == ',')
                j->p++;
            ws(j);
        }
        if (j->p < j->end)
            j->p++;
        fputc(']', j->f);
    } else if (*j->p == '[') {
        j->p++;
        ws(j);
        while (j->p < j->end && *j->p != ']') {
            indent(j->f, level);
            fputs("- ", j->f);
            if (*j->p == '{') {
                object_body(j, level + 1, true);
            } else {
                value(j, level + 1);
                fputc('\n', j->f);
            }
            ws(j);
            if (j->p < j->end && *j->p == ',')
                j->p++;
            ws(j);
        }
        if (j->p < j->end)
            j->p++;
    } else {
        scalar(j);
    }
}

void json_text_print(FILE *f, const char *json, size_t n, int level)
{
    jt j = {json, json + n, f};
    ws(&j);
    if (j.p < j.end && *j.p == '{')
        object_body(&j, level, false);
    else
        value(&j, level);
}
