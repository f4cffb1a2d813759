/* checkpoint_text.h: what the parsers of the small text files beside the
 * logs share (checkpoint.c the offset and leader-epoch checkpoints,
 * partition_metadata.c, meta_properties.c, uuid.c): lines as Java's
 * BufferedReader reads them, Java's \s, Integer/Long.parseInt, excerpts of
 * a line for messages, and Uuid.fromString. Private. */
#ifndef KFSCK_FORMAT_CHECKPOINT_TEXT_H
#define KFSCK_FORMAT_CHECKPOINT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* A printable excerpt of a line for messages into out (cap bytes; "..."
 * when cut). */
void kf_text_excerpt(const uint8_t *p, uint64_t n, char *out, size_t cap);

/* A reason into msg (msglen bytes; nothing when msg is NULL or msglen 0). */
void kf_text_set_msg(char *msg, size_t msglen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Uuid.fromString: 22 characters, or 24 ending in "==" (the decoder takes
 * padding). 0, or -1 when s is not a Uuid. */
int kf_uuid_parse_java(const uint8_t *s, size_t len, uint8_t uuid[16]);

#endif
