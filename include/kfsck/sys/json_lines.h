/* json_lines.h: the JSON-lines writer, the one place the JSON every command
 * prints with --json is formatted: one object per line, its first field
 * "type", then the line's fields, nested objects and arrays. The library
 * never prints: each finished line goes to the caller's sink (kfsck's
 * command line writes it to stdout; the HTML report keeps it in a page
 * element), and each command's lines are built by the functions its job
 * declares beside it (kf_scan_partition_json, kf_predict_partition_json,
 * ...), so every reader of a command's lines gets the same types, fields,
 * order and values.
 *
 * How values are written:
 *  - integers in decimal, doubles as printf's "%.17g" (the value read back
 *    is the value written), true, false, null;
 *  - a string as a JSON string: " and \ escaped, newline, carriage return
 *    and tab as \n \r \t, every other control character and DEL as \u00NN,
 *    and a NULL string as null. A string that is not valid UTF-8 has each
 *    of its bytes from 0x80 up written as \ufffd, so a line is always
 *    valid JSON whatever the names on the disk are made of;
 *  - with KF_JSONL_SCRIPT (lines that go inside an HTML <script> element)
 *    also < > & as \u003c \u003e \u0026 (no "</script" or "<!--" can
 *    appear), the characters that reorder or hide text (U+0080-U+009F,
 *    U+200B-U+200F, U+2028-U+202E, U+2066-U+2069, U+FEFF) as \uNNNN, and
 *    in a string that is not UTF-8 only the bytes that start no valid
 *    sequence as \ufffd;
 *  - bytes as standard base64 with padding (RFC 4648 section 4).
 *
 *     kf_jsonl j;
 *     kf_jsonl_init(&j, 0, write_line, stdout);
 *     kf_jsonl_begin(&j, "partition");
 *     kf_jsonl_str(&j, "topic", "orders");
 *     kf_jsonl_int(&j, "partition", 3);
 *     kf_jsonl_end(&j);                       // write_line gets the line
 *     kf_jsonl_free(&j);
 *
 * The writer also builds pieces of JSON that are not lines (an object
 * inside a text line): write the values with no kf_jsonl_begin and hand
 * what is built to the sink with kf_jsonl_flush, or have each go out as it
 * is written (KF_JSONL_PIECES), so that it keeps its place among what the
 * caller writes beside it. */
#ifndef KFSCK_JSON_LINES_H
#define KFSCK_JSON_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the sink is handed: how says which. */
enum {
    KF_JSONL_LINE = 1,     /* a whole line, its '\n' last */
    KF_JSONL_SUMMARY = 2,  /* with KF_JSONL_LINE: a line that sums up a command's output (kf_jsonl_end_summary) */
    KF_JSONL_CUT = 4,      /* the bytes stop short: memory for the rest could not be had */
};

/* Receives the bytes built: a line (how has KF_JSONL_LINE) or, from
 * kf_jsonl_flush, a piece (how 0). p is only valid during the call. */
typedef void (*kf_jsonl_sink)(void *ctx, const char *p, size_t n, unsigned how);

/* kf_jsonl_init's flags. */
enum {
    KF_JSONL_SCRIPT = 1,   /* strings safe inside an HTML <script> element (above) */
    KF_JSONL_PIECES = 2,   /* a value written outside a line goes to the sink at once (how 0) */
};

#define KF_JSONL_INLINE 512

/* The writer: fill with kf_jsonl_init. A line is built in small (or, when
 * it grows past it, in heap memory given back when the line is handed
 * over). */
typedef struct kf_jsonl {
    kf_jsonl_sink sink;
    void *ctx;
    unsigned flags;
    bool comma;            /* a value was written at this level: the next one needs a ',' */
    bool in_line;          /* between kf_jsonl_begin and kf_jsonl_end */
    bool oom;              /* the line could not grow: it is handed over with KF_JSONL_CUT */
    char *heap;            /* the line when it outgrew small; NULL otherwise */
    size_t n, cap;         /* bytes built; room (in small, or in heap) */
    char small[KF_JSONL_INLINE];
} kf_jsonl;

void kf_jsonl_init(kf_jsonl *j, unsigned flags, kf_jsonl_sink sink, void *ctx);
/* Drops what is built and not handed over. */
void kf_jsonl_free(kf_jsonl *j);

/* A line: kf_jsonl_begin(j, "type"), its fields, kf_jsonl_end(j). */
void kf_jsonl_begin(kf_jsonl *j, const char *type);
void kf_jsonl_end(kf_jsonl *j);
/* kf_jsonl_end of a line that sums up a command's output (the sink is told
 * KF_JSONL_SUMMARY: a reader that keeps only some lines keeps these). */
void kf_jsonl_end_summary(kf_jsonl *j);
/* Hands what is built to the sink as a piece (how 0), and starts afresh. */
void kf_jsonl_flush(kf_jsonl *j);

/* The fields. key is the field's name; NULL inside an array (and for a
 * value that follows kf_jsonl_key). */
void kf_jsonl_key(kf_jsonl *j, const char *key);
void kf_jsonl_int(kf_jsonl *j, const char *key, int64_t v);
void kf_jsonl_uint(kf_jsonl *j, const char *key, uint64_t v);
void kf_jsonl_null(kf_jsonl *j, const char *key);
/* v when has, else null. */
void kf_jsonl_opt_int(kf_jsonl *j, const char *key, bool has, int64_t v);
void kf_jsonl_bool(kf_jsonl *j, const char *key, bool v);
void kf_jsonl_double(kf_jsonl *j, const char *key, double v);
/* A string; NULL is null. */
void kf_jsonl_str(kf_jsonl *j, const char *key, const char *s);
void kf_jsonl_strn(kf_jsonl *j, const char *key, const char *s, size_t n);
/* Bytes as base64; p NULL with n > 0 is null. */
void kf_jsonl_b64(kf_jsonl *j, const char *key, const uint8_t *p, size_t n);
/* An array of integers, or null when !has. */
void kf_jsonl_int32s(kf_jsonl *j, const char *key, bool has, const int32_t *v, size_t n);
/* Nested containers. */
void kf_jsonl_obj_open(kf_jsonl *j, const char *key);
void kf_jsonl_obj_close(kf_jsonl *j);
void kf_jsonl_arr_open(kf_jsonl *j, const char *key);
void kf_jsonl_arr_close(kf_jsonl *j);
/* n bytes that are JSON already (a value checked to be JSON), as they are. */
void kf_jsonl_raw(kf_jsonl *j, const char *p, size_t n);

/* A line's flat fields as one list: kf_jsonl_fields(j, KF_JU("partitions",
 * n), KF_JS("topic", t), ...) writes them in order, as the one-field
 * functions above would. The makers say each value's kind, as those
 * functions' names do:
 *   KF_JI integer, KF_JU unsigned, KF_JOPT integer or null (has, v),
 *   KF_JB true/false, KF_JD double, KF_JS string (NULL is null),
 *   KF_JNULL null. */
typedef struct kf_jsonl_field {
    const char *key;
    enum { KF_JF_INT, KF_JF_UINT, KF_JF_OPT_INT, KF_JF_BOOL, KF_JF_DOUBLE, KF_JF_STR, KF_JF_NULL } kind;
    bool has;              /* KF_JF_OPT_INT: v.i is there; else null */
    union {
        int64_t i;
        uint64_t u;
        double d;
        bool b;
        const char *s;
    } v;
} kf_jsonl_field;

void kf_jsonl_fieldv(kf_jsonl *j, const kf_jsonl_field *f, size_t n);

#ifndef __cplusplus
#define KF_JI(k, x) ((kf_jsonl_field){ (k), KF_JF_INT, true, { .i = (x) } })
#define KF_JU(k, x) ((kf_jsonl_field){ (k), KF_JF_UINT, true, { .u = (x) } })
#define KF_JOPT(k, h, x) ((kf_jsonl_field){ (k), KF_JF_OPT_INT, (h), { .i = (x) } })
#define KF_JB(k, x) ((kf_jsonl_field){ (k), KF_JF_BOOL, true, { .b = (x) } })
#define KF_JD(k, x) ((kf_jsonl_field){ (k), KF_JF_DOUBLE, true, { .d = (x) } })
#define KF_JS(k, x) ((kf_jsonl_field){ (k), KF_JF_STR, true, { .s = (x) } })
#define KF_JNULL(k) ((kf_jsonl_field){ (k), KF_JF_NULL, false, { .i = 0 } })
#define kf_jsonl_fields(j, ...)                                                                  \
    kf_jsonl_fieldv((j), (const kf_jsonl_field[]){ __VA_ARGS__ },                               \
                    sizeof((const kf_jsonl_field[]){ __VA_ARGS__ }) / sizeof(kf_jsonl_field))
#endif

/* UTF-8 as the writer reads it (RFC 3629: no overlong forms, no
 * surrogates, nothing past U+10FFFF). The length of the valid sequence at
 * p (n bytes left) and its code point in *cp, or 0 when p starts none. */
size_t kf_utf8_seq(const uint8_t *p, size_t n, uint32_t *cp);
/* Whether p[0..n) is all valid UTF-8. */
bool kf_utf8_valid(const uint8_t *p, size_t n);
/* Whether a character changes how the text around it reads or hides what
 * a name is (KF_JSONL_SCRIPT escapes them): C1 controls, the zero-width
 * ones, the line and paragraph separators, the bidirectional embeddings,
 * overrides and isolates, the byte-order mark. */
bool kf_unicode_hides(uint32_t cp);

#ifdef __cplusplus
}
#endif

#endif
