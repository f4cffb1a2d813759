/* checkpoint_text.h: what the parsers of the small text files beside the
 * logs share (checkpoint.c the offset and leader-epoch checkpoints,
 * partition_metadata.c, meta_properties.c, uuid.c): lines as Java's
 * BufferedReader reads them (of bytes in memory, or of a file read in
 * pieces: kf_text_stream), Java's \s, Integer/Long.parseInt, excerpts of a
 * line for messages, and Uuid.fromString. Private. */
#ifndef KFSCK_FORMAT_CHECKPOINT_TEXT_H
#define KFSCK_FORMAT_CHECKPOINT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/sys/file.h"

/* The lines of a file's bytes d[0, n), read from pos on. */
typedef struct kf_text_lines {
    const uint8_t *d;
    uint64_t n;
    uint64_t pos;
} kf_text_lines;

/* Next line as BufferedReader.readLine sees it: ends at \n, \r or \r\n; a
 * last line without terminator counts; nothing after a final terminator. */
static inline bool kf_text_next_line(kf_text_lines *L, uint64_t *start, uint64_t *len)
{
    if (L->pos >= L->n)
        return false;
    uint64_t s = L->pos, i = s;
    while (i < L->n && L->d[i] != '\n' && L->d[i] != '\r')
        i++;
    *start = s;
    *len = i - s;
    if (i < L->n) {
        if (L->d[i] == '\r' && i + 1 < L->n && L->d[i + 1] == '\n')
            i += 2;
        else
            i++;
    }
    L->pos = i;
    return true;
}

/* Java's \s inside a line (line terminators never occur there). */
static inline bool kf_text_is_ws(uint8_t c) { return c == ' ' || c == '\t' || c == 0x0b || c == '\f' || c == '\r' || c == '\n'; }

/* Integer.parseInt / Long.parseLong on ASCII: optional sign, then digits,
 * nothing else, in [min, max]. */
bool kf_text_parse_int(const uint8_t *p, size_t n, int64_t min, int64_t max, int64_t *out);

/* The UTF-8 of code point cp (at most 0x10FFFF) into u: its length, 1 to 4
 * (the properties files' escapes). */
size_t kf_text_utf8(uint32_t cp, uint8_t u[4]);

/* A printable excerpt of a line for messages into out (cap bytes; "..."
 * when cut). */
void kf_text_excerpt(const uint8_t *p, uint64_t n, char *out, size_t cap);


/* ---- the lines of a file read in pieces ---------------------------------
 *
 * The same lines as kf_text_next_line, of a source read KF_TEXT_STREAM_BUF
 * bytes at a time (or of bytes in memory), so a file of any size is parsed
 * in a fixed few tens of KiB. A line shorter than KF_TEXT_STREAM_BUF comes
 * whole; of a longer one only its first KF_TEXT_HEAD bytes are kept, and
 * what Integer.parseInt needs of it (its leading zeros cut to one). */
#define KF_TEXT_STREAM_BUF ((size_t)64 << 10)
#define KF_TEXT_HEAD 128
#define KF_TEXT_SQUEEZED 32

typedef struct kf_text_line {
    uint64_t start, len;    /* position in the file; length without the terminator */
    const uint8_t *p;       /* whole: the len bytes; else the first KF_TEXT_HEAD of them */
    bool whole;
    const uint8_t *squeezed; /* not whole: the line, its leading zeros (after a sign) cut to one */
    size_t squeezed_len;
    bool squeezed_over;     /* longer than KF_TEXT_SQUEEZED even so: no integer */
} kf_text_line;

typedef struct kf_text_stream {
    kf_source *src;         /* NULL: every byte is in d already */
    const uint8_t *d;       /* the bytes held: the file's [base, base + n) */
    uint8_t *buf;           /* d, for a source */
    uint64_t base;
    size_t n, at;           /* held, and where the next line starts */
    bool eof, skip_lf;      /* skip_lf: the last line ended with \r (a \n after it is its terminator too) */
    bool failed;            /* a read failed (err_no): no more lines */
    int err_no;
    uint8_t head[KF_TEXT_HEAD];
    int sq_state;           /* squeezing a long line: 0 sign, 1 leading zeros, 2 the rest */
    bool sq_zero;
    uint8_t sq[KF_TEXT_SQUEEZED];
    size_t sq_len;
    bool sq_over;
} kf_text_stream;

/* Lines of size bytes at data (not copied). */
void kf_text_stream_memory(kf_text_stream *t, const uint8_t *data, uint64_t size);
/* Lines of src, from its start: KF_OK or KF_ERR_NOMEM. Free with
 * kf_text_stream_free (src stays the caller's). */
int kf_text_stream_source(kf_text_stream *t, kf_source *src);
void kf_text_stream_free(kf_text_stream *t);
/* The next line into *line (valid until the next call); false at the end,
 * or when a read failed (t->failed). */
bool kf_text_stream_next(kf_text_stream *t, kf_text_line *line);
/* kf_text_parse_int over a whole line, or over what was kept of a longer one. */
bool kf_text_line_int(const kf_text_line *line, int64_t min, int64_t max, int64_t *out);
/* kf_text_excerpt of a line (cap at most KF_TEXT_HEAD: an excerpt never
 * reaches past the bytes kept). */
void kf_text_line_excerpt(const kf_text_line *line, char *out, size_t cap);

/* Uuid.fromString: 22 characters, or 24 ending in "==" (the decoder takes
 * padding). 0, or -1 when s is not a Uuid. */
int kf_uuid_parse_java(const uint8_t *s, size_t len, uint8_t uuid[16]);

#endif
