/* cs_notation.c: the field notation the schema tables are written in (one
 * string per struct, e.g. "host:string port:uint16 rack:string?@1+"; the
 * grammar is at cs_parse_fields in coord_internal.h), turned into the
 * cs_field array the schema walker (coord_walk.c) reads. Pure: the caller
 * gives the storage (schema_tables.c builds every table with it once). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "records/coord_internal.h"

/* The primitive types by their notation name, in cs_kind order. */
static const char *const prim_names[] = {"int8", "int16", "uint16", "int32",  "int64",
                                         "float64", "bool", "string", "bytes", "uuid"};

typedef struct parser {
    const char *p;     /* the next character */
    const char *spec;  /* for the position in messages */
    char *err;
    size_t err_cap;
} parser;

static int fail(parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(parser *ps, const char *fmt, ...)
{
    int at = snprintf(ps->err, ps->err_cap, "at %zu: ", (size_t)(ps->p - ps->spec));
    va_list ap;
    va_start(ap, fmt);
    if (at >= 0 && (size_t)at < ps->err_cap)
        vsnprintf(ps->err + at, ps->err_cap - (size_t)at, fmt, ap);
    va_end(ap);
    return -1;
}

static bool is_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The length of the word (letters, digits, '_') at ps->p. */
static size_t word_len(const parser *ps)
{
    size_t n = 0;
    while (is_word_char(ps->p[n]))
        n++;
    return n;
}

/* A decimal number at ps->p, at most max (a '-' first when negative_ok). */
static int number(parser *ps, bool negative_ok, int64_t max, int64_t *v)
{
    bool neg = negative_ok && *ps->p == '-';
    const char *d = ps->p + neg;
    int64_t x = 0;
    size_t n = 0;
    for (; d[n] >= '0' && d[n] <= '9'; n++) {
        if (x > (max - (d[n] - '0')) / 10)
            return fail(ps, "number past %lld", (long long)max);
        x = x * 10 + (d[n] - '0');
    }
    if (!n)
        return fail(ps, "a number expected");
    ps->p = d + n;
    *v = neg ? -x : x;
    return 0;
}

/* A type name at ps->p: a primitive's (*kind) or one of uses' (*sub). */
static int type_name(parser *ps, struct cs_struct *const *uses, uint8_t *kind, const cs_struct **sub)
{
    size_t n = word_len(ps);
    if (!n)
        return fail(ps, "a type expected");
    for (size_t i = 0; i < sizeof prim_names / sizeof prim_names[0]; i++)
        if (strlen(prim_names[i]) == n && !memcmp(ps->p, prim_names[i], n)) {
            *kind = (uint8_t)(CS_INT8 + i);
            ps->p += n;
            return 0;
        }
    for (size_t i = 0; i < CS_MAX_USES && uses && uses[i]; i++)
        if (strlen(uses[i]->name) == n && !memcmp(ps->p, uses[i]->name, n)) {
            *kind = CS_STRUCT;
            *sub = uses[i];
            ps->p += n;
            return 0;
        }
    return fail(ps, "unknown type %.*s", (int)n, ps->p);
}

/* The field's type: a name, or an array of one in brackets. */
static int field_type(parser *ps, struct cs_struct *const *uses, cs_field *f)
{
    if (*ps->p != '[')
        return type_name(ps, uses, &f->kind, &f->sub);
    ps->p++;
    f->kind = CS_ARRAY;
    if (type_name(ps, uses, &f->elem, &f->sub) < 0)
        return -1;
    if (*ps->p != ']')
        return fail(ps, "']' expected");
    ps->p++;
    return 0;
}

/* "@N", "@N+" or "@N-M". */
static int versions(parser *ps, cs_field *f)
{
    int64_t lo, hi;
    if (number(ps, false, CS_VMAX - 1, &lo) < 0)
        return -1;
    hi = lo;
    if (*ps->p == '+') {
        ps->p++;
        hi = CS_VMAX;
    } else if (*ps->p == '-') {
        ps->p++;
        if (number(ps, false, CS_VMAX - 1, &hi) < 0)
            return -1;
        if (hi < lo)
            return fail(ps, "versions %lld-%lld run backwards", (long long)lo, (long long)hi);
    }
    f->v_min = (int16_t)lo;
    f->v_max = (int16_t)hi;
    return 0;
}

/* One field's word, at ps->p. */
static int field(parser *ps, struct cs_struct *const *uses, cs_field *f, char *names, size_t names_cap,
                 size_t *names_used)
{
    *f = (cs_field){.v_min = 0, .v_max = CS_VMAX, .null_min = 1, .null_max = 0, .tag = -1, .tag_min = 1,
                    .tag_max = 0};
    size_t n = word_len(ps);
    if (!n || ps->p[n] != ':')
        return fail(ps, "name: expected");
    if (*names_used + n + 1 > names_cap)
        return fail(ps, "out of room for names (%zu bytes)", names_cap);
    char *name = names + *names_used;
    memcpy(name, ps->p, n);
    name[n] = 0;
    *names_used += n + 1;
    f->name = name;
    ps->p += n + 1;
    if (field_type(ps, uses, f) < 0)
        return -1;
    bool nullable = *ps->p == '?';
    ps->p += nullable;
    if (*ps->p == '@') {
        ps->p++;
        if (versions(ps, f) < 0)
            return -1;
    }
    if (nullable) {
        f->null_min = f->v_min;
        f->null_max = f->v_max;
    }
    if (*ps->p == '#') {
        ps->p++;
        int64_t tag;
        if (number(ps, false, CS_VMAX, &tag) < 0)
            return -1;
        f->tag = (int16_t)tag;
        f->tag_min = f->v_min;
        f->tag_max = f->v_max;
    }
    if (*ps->p == '=') {
        ps->p++;
        if (number(ps, true, INT64_MAX, &f->def) < 0)
            return -1;
    }
    if (*ps->p == '!') {
        ps->p++;
        f->flags |= CS_F_SECRET;
    }
    if (*ps->p && *ps->p != ' ')
        return fail(ps, "'%c' unexpected", *ps->p);
    return 0;
}

int cs_parse_fields(const char *spec, struct cs_struct *const *uses, cs_field *out, size_t cap, char *names,
                    size_t names_cap, size_t *names_used, char *err, size_t err_cap)
{
    parser ps = {.p = spec, .spec = spec, .err = err, .err_cap = err_cap};
    size_t n = 0;
    for (;;) {
        while (*ps.p == ' ')
            ps.p++;
        if (!*ps.p)
            return (int)n;
        if (n == cap)
            return fail(&ps, "more than %zu fields", cap);
        if (field(&ps, uses, &out[n], names, names_cap, names_used) < 0)
            return -1;
        n++;
    }
}
