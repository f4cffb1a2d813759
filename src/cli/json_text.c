/* json_text.c: JSON produced by kfsck itself, printed as indented,
 * human-readable text (for commands whose records are nested, like
 * `groups`): "key: value" lines, nested objects indented, arrays of scalars
 * inline as [a, b], arrays of objects as "- " items, null as "-", a time
 * in ms (ms_key) as its ms and UTC ISO 8601, a duration in ms as its ms
 * and in units (30s, 5m00s). The JSON is read with Jansson, the one JSON
 * reader of kfsck (keys stay in their order); numbers print as our writer
 * wrote them (integers as integers, the rest as %.17g, which reads back to
 * the same text). Text that is not JSON, which our writer never makes, is
 * printed escaped. */
#include "cli/json_text.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli/escape.h"
#include "cli/out.h"

static void indent(FILE *f, int n)
{
    for (int i = 0; i < n; i++)
        fputs("  ", f);
}

/* A string's content for text, by the one escaping rule (escape.h), but a
 * newline, carriage return or tab as a space, so the layout holds: a name's
 * control characters never reach the terminal, whatever the JSON held. */
static void string(FILE *f, const char *s, size_t n)
{
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\n' || s[i] == '\r' || s[i] == '\t') {
            esc_write(f, s + run, i - run);
            fputc(' ', f);
            run = i + 1;
        }
    }
    esc_write(f, s + run, n - run);
}

static void scalar(FILE *f, const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_STRING: string(f, json_string_value(v), json_string_length(v)); break;
    case JSON_INTEGER: tprintf(f, "%" JSON_INTEGER_FORMAT, json_integer_value(v)); break;
    case JSON_REAL: tprintf(f, "%.17g", json_real_value(v)); break;
    case JSON_TRUE: fputs("true", f); break;
    case JSON_FALSE: fputs("false", f); break;
    default: fputc('-', f); break; /* null */
    }
}

/* An array of scalars only (none of its items an object or an array)? */
static bool flat_array(const json_t *a)
{
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v)
        if (json_is_object(v) || json_is_array(v))
            return false;
    return true;
}

static bool ends_with(const char *k, size_t n, const char *suffix)
{
    size_t m = strlen(suffix);
    return n >= m && !memcmp(k + n - m, suffix, m);
}

/* What a key names in milliseconds: a time since the epoch ("timestamp", a
 * name ending in "_timestamp" or "_time_ms"), a duration (ending in
 * "_timeout" or "_timeout_ms"), or neither. */
enum { MS_NONE, MS_TIME, MS_DURATION };
static int ms_key(const char *k)
{
    size_t n = strlen(k);
    if (!strcmp(k, "timestamp") || ends_with(k, n, "_timestamp") || ends_with(k, n, "_time_ms"))
        return MS_TIME;
    if (ends_with(k, n, "_timeout") || ends_with(k, n, "_timeout_ms"))
        return MS_DURATION;
    return MS_NONE;
}

static void value(FILE *f, const json_t *v, int level);

/* Such a value: the ms as written, then the UTC time or the duration in
 * units when it is a non-negative integer (-1 and null stay as they are). */
static void ms_value(FILE *f, const json_t *v, int level, int kind)
{
    value(f, v, level);
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return;
    char text[40];
    if (kind == MS_TIME)
        kf_format_time((int64_t)json_integer_value(v), true, text, sizeof text);
    else
        kf_format_duration((int64_t)json_integer_value(v), text, sizeof text);
    tprintf(f, " (%s)", text);
}

static void object_body(FILE *f, const json_t *o, int level, bool first_inline)
{
    bool first = true;
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)o, key, v) {
        if (!(first && first_inline))
            indent(f, level);
        first = false;
        string(f, key, strlen(key));
        fputc(':', f);
        if (json_is_object(v)) {
            fputc('\n', f);
            object_body(f, v, level + 1, false);
        } else if (json_is_array(v) && !flat_array(v)) {
            fputc('\n', f);
            value(f, v, level + 1);
        } else if (ms_key(key) != MS_NONE) {
            fputc(' ', f);
            ms_value(f, v, level, ms_key(key));
            fputc('\n', f);
        } else {
            fputc(' ', f);
            value(f, v, level);
            fputc('\n', f);
        }
    }
}

static void value(FILE *f, const json_t *v, int level)
{
    size_t i;
    json_t *item;
    if (json_is_object(v)) {
        object_body(f, v, level, false);
    } else if (json_is_array(v) && flat_array(v)) {
        fputc('[', f);
        json_array_foreach(v, i, item) {
            if (i)
                fputs(", ", f);
            scalar(f, item);
        }
        fputc(']', f);
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, item) {
            indent(f, level);
            fputs("- ", f);
            if (json_is_object(item)) {
                object_body(f, item, level + 1, true);
            } else {
                value(f, item, level + 1);
                fputc('\n', f);
            }
        }
    } else {
        scalar(f, v);
    }
}

void json_text_print(FILE *f, const char *json, size_t n, int level)
{
    json_error_t e;
    json_t *v = json_loadb(json, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
    if (!v) {
        esc_write(f, json, n);
        return;
    }
    value(f, v, level);
    json_decref(v);
}
