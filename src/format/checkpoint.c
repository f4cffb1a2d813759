/* checkpoint.c: parsers for the small text files beside the logs
 * (segment-format.md §4.8-4.10): the offset checkpoints and
 * leader-epoch-checkpoint (CheckpointFile.java: version line, count line,
 * then count entry lines split on whitespace), partition.metadata
 * ("version: N" / "topic_id: <uuid>", split on ":\s+"), meta.properties (Java
 * Properties syntax) and Kafka's Uuid text form (22 chars of URL-safe base64,
 * no padding). Each parser follows what the broker accepts, line by line over
 * the mapped bytes: lines end at \n, \r or \r\n as for Java's BufferedReader,
 * integers are parsed as Integer/Long.parseInt parse them. Memory use is a
 * few small fixed buffers whatever the input; overlong lines and values are
 * errors. kf_leader_epochs_read reads a leader-epoch-checkpoint from disk
 * into a list (the one loader of the jobs and the partition reader). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfsck/checkpoint.h"
#include "kfsck/file.h"

#define CKPT_MAX_LINE 1024     /* longer entry lines are errors (a topic name is at most 249 chars) */
#define CKPT_MAX_TOPIC 255
#define CKPT_MAX_PROBLEMS 100  /* then one summary problem */

static void set_msg(char *msg, size_t msglen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_msg(char *msg, size_t msglen, const char *fmt, ...)
{
    if (!msg || msglen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msglen, fmt, ap);
    va_end(ap);
}

/* ---- lines and numbers ------------------------------------------------- */

typedef struct lines {
    const uint8_t *d;
    uint64_t n;
    uint64_t pos;
} lines;

/* Next line as BufferedReader.readLine sees it: ends at \n, \r or \r\n; a
 * last line without terminator counts; nothing after a final terminator. */
static bool next_line(lines *L, uint64_t *start, uint64_t *len)
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
static bool is_ws(uint8_t c) { return c == ' ' || c == '\t' || c == 0x0b || c == '\f' || c == '\r' || c == '\n'; }

/* Integer.parseInt / Long.parseLong on ASCII: optional sign, then digits,
 * nothing else, in [min, max]. */
static bool parse_int(const uint8_t *p, size_t n, int64_t min, int64_t max, int64_t *out)
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

/* Java's String.split("\\s+") (limit 0) on one line, counting up to
 * KF_MAXTOK tokens: a leading separator gives an empty first token, trailing
 * empty tokens are dropped. Returns the token count (KF_MAXTOK means "at
 * least"). */
#define KF_MAXTOK 4
static int split_ws(const uint8_t *p, size_t n, size_t ts[KF_MAXTOK], size_t tl[KF_MAXTOK])
{
    int nt = 0;
    size_t i = 0;
    bool any_match = false;
    while (nt < KF_MAXTOK) {
        size_t s = i;
        while (i < n && !is_ws(p[i]))
            i++;
        ts[nt] = s;
        tl[nt] = i - s;
        nt++;
        if (i >= n)
            break;
        any_match = true;
        while (i < n && is_ws(p[i]))
            i++;
        if (i >= n)
            break; /* trailing empty token: dropped */
    }
    if (!any_match)
        return 1; /* no separator: the whole line */
    while (nt > 0 && tl[nt - 1] == 0)
        nt--; /* all-empty: Java returns no tokens */
    return nt;
}

/* ---- offset / leader-epoch checkpoints --------------------------------- */

typedef struct ckpt_ctx {
    kf_problem_fn fn;
    void *ctx;
    uint64_t problems;
    uint64_t suppressed;
    uint64_t first_suppressed_pos;
} ckpt_ctx;

static void ckpt_problem(ckpt_ctx *c, uint64_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void ckpt_problem(ckpt_ctx *c, uint64_t pos, const char *fmt, ...)
{
    if (c->problems >= CKPT_MAX_PROBLEMS) {
        if (c->suppressed++ == 0)
            c->first_suppressed_pos = pos;
        return;
    }
    c->problems++;
    char buf[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    kf_report(c->fn, c->ctx, KF_P_CHECKPOINT_INVALID, KF_SEV_ERROR, pos, false, 0, "%s", buf);
}

/* A printable excerpt of a line for messages ("..." when cut). */
static void excerpt(const uint8_t *p, uint64_t n, char *out, size_t cap)
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

int kf_checkpoint_parse(const uint8_t *data, uint64_t size, int kind, int32_t *version,
                        kf_checkpoint_entry_fn entry_fn, void *ectx, kf_problem_fn pfn, void *pctx)
{
    ckpt_ctx c = {.fn = pfn, .ctx = pctx};
    lines L = {.d = data, .n = data ? size : 0, .pos = 0};
    uint64_t ls, ll;
    char ex[80];

    if (!next_line(&L, &ls, &ll))
        return KF_OK; /* empty file: empty list */
    int64_t v;
    if (!parse_int(data + ls, (size_t)ll, INT32_MIN, INT32_MAX, &v)) {
        excerpt(data + ls, ll, ex, sizeof ex);
        ckpt_problem(&c, ls, "malformed version line \"%s\"", ex);
        return KF_ERR_CORRUPT;
    }
    if (version)
        *version = (int32_t)v;
    if (v != 0) {
        ckpt_problem(&c, ls, "unrecognised version %" PRId64 ", expected version 0", v);
        return KF_ERR_CORRUPT;
    }
    if (!next_line(&L, &ls, &ll))
        return KF_OK; /* the broker reads a missing count line as an empty list */
    int64_t count;
    uint64_t count_pos = ls;
    if (!parse_int(data + ls, (size_t)ll, INT32_MIN, INT32_MAX, &count)) {
        excerpt(data + ls, ll, ex, sizeof ex);
        ckpt_problem(&c, ls, "malformed entry count line \"%s\"", ex);
        return KF_ERR_CORRUPT;
    }
    if (count < 0)
        ckpt_problem(&c, ls, "negative entry count %" PRId64, count);

    uint64_t nlines = 0, first_extra_pos = 0;
    bool have_prev = false;
    int32_t prev_epoch = 0;
    int64_t prev_start = 0;
    int want_fields = kind == KF_CKPT_LEADER_EPOCH ? 2 : 3;
    char topic[CKPT_MAX_TOPIC + 1];

    while (next_line(&L, &ls, &ll)) {
        const uint8_t *p = data + ls;
        nlines++;
        if (count >= 0 && nlines == (uint64_t)count + 1)
            first_extra_pos = ls;
        if (ll > CKPT_MAX_LINE) {
            ckpt_problem(&c, ls, "line of %" PRIu64 " bytes is too long for an entry", ll);
            continue;
        }
        size_t ts[KF_MAXTOK], tl[KF_MAXTOK];
        int nt = split_ws(p, (size_t)ll, ts, tl);
        excerpt(p, ll, ex, sizeof ex);
        if (nt != want_fields) {
            ckpt_problem(&c, ls, "malformed line \"%s\": expected %d fields", ex, want_fields);
            continue;
        }
        kf_checkpoint_entry e = {0};
        e.position = ls;
        if (kind == KF_CKPT_LEADER_EPOCH) {
            int64_t ep, so;
            if (!parse_int(p + ts[0], tl[0], INT32_MIN, INT32_MAX, &ep) ||
                !parse_int(p + ts[1], tl[1], INT64_MIN, INT64_MAX, &so)) {
                ckpt_problem(&c, ls, "malformed line \"%s\": epoch and start offset must be integers", ex);
                continue;
            }
            e.epoch = (int32_t)ep;
            e.offset = so;
            if (have_prev && e.epoch <= prev_epoch)
                ckpt_problem(&c, ls, "leader epoch %" PRId32 " is not greater than the previous epoch %" PRId32,
                             e.epoch, prev_epoch);
            if (have_prev && e.offset <= prev_start)
                ckpt_problem(&c, ls,
                             "start offset %" PRId64 " of epoch %" PRId32
                             " is not greater than the previous start offset %" PRId64,
                             e.offset, e.epoch, prev_start);
            have_prev = true;
            prev_epoch = e.epoch;
            prev_start = e.offset;
        } else {
            int64_t part, off;
            if (tl[0] == 0 || tl[0] > CKPT_MAX_TOPIC || memchr(p + ts[0], 0, tl[0])) {
                ckpt_problem(&c, ls, "malformed line \"%s\": bad topic name", ex);
                continue;
            }
            if (!parse_int(p + ts[1], tl[1], INT32_MIN, INT32_MAX, &part) ||
                !parse_int(p + ts[2], tl[2], INT64_MIN, INT64_MAX, &off)) {
                ckpt_problem(&c, ls, "malformed line \"%s\": partition and offset must be integers", ex);
                continue;
            }
            memcpy(topic, p + ts[0], tl[0]);
            topic[tl[0]] = 0;
            e.topic = topic;
            e.partition = (int32_t)part;
            e.offset = off;
        }
        if (entry_fn)
            entry_fn(ectx, &e);
    }
    if (count >= 0 && nlines != (uint64_t)count) {
        if (nlines < (uint64_t)count)
            ckpt_problem(&c, count_pos, "expected %" PRId64 " entries but found only %" PRIu64, count, nlines);
        else
            ckpt_problem(&c, first_extra_pos, "expected %" PRId64 " entries but found %" PRIu64, count, nlines);
    }
    if (c.suppressed)
        kf_report(pfn, pctx, KF_P_CHECKPOINT_INVALID, KF_SEV_ERROR, c.first_suppressed_pos, false, 0,
                  "%" PRIu64 " further problems in this checkpoint are not listed", c.suppressed);
    return c.problems ? KF_ERR_CORRUPT : KF_OK;
}

/* ---- leader-epoch-checkpoint from disk ---------------------------------- */

typedef struct epoch_loader {
    kf_leader_epochs *l;
    size_t cap;
    bool positions;
    bool nomem;
} epoch_loader;

static void epoch_collect(void *ctx, const kf_checkpoint_entry *e)
{
    epoch_loader *ld = ctx;
    kf_leader_epochs *l = ld->l;
    if (ld->nomem)
        return;
    if (l->n == ld->cap) {
        size_t cap = ld->cap ? ld->cap * 2 : 16;
        kf_leader_epoch *ne = realloc(l->entries, cap * sizeof *ne);
        if (ne)
            l->entries = ne;
        uint64_t *np = ne && ld->positions ? realloc(l->positions, cap * sizeof *np) : NULL;
        if (np)
            l->positions = np;
        if (!ne || (ld->positions && !np)) {
            ld->nomem = true;
            return;
        }
        ld->cap = cap;
    }
    l->entries[l->n] = (kf_leader_epoch){e->epoch, e->offset};
    if (ld->positions)
        l->positions[l->n] = e->position;
    l->n++;
}

int kf_leader_epochs_read(const char *path, bool positions, kf_leader_epochs *out, kf_problem_fn pfn, void *pctx)
{
    memset(out, 0, sizeof *out);
    kf_bytes m;
    int err_no = 0;
    int rc = kf_file_read_all(path, KF_SMALL_FILE_MAX, &m.data, &m.size, &err_no);
    if (rc == KF_ERR_NOMEM)
        return rc;
    if (rc != KF_OK) {
        out->present = err_no != ENOENT;
        return KF_OK;
    }
    out->present = out->read = true;
    epoch_loader ld = {out, 0, positions, false};
    int32_t version;
    out->valid = kf_checkpoint_parse(m.data, m.size, KF_CKPT_LEADER_EPOCH, &version, epoch_collect, &ld, pfn,
                                     pctx) == KF_OK;
    free(m.data);
    if (ld.nomem) {
        kf_leader_epochs_free(out);
        return KF_ERR_NOMEM;
    }
    return KF_OK;
}

void kf_leader_epochs_free(kf_leader_epochs *l)
{
    free(l->entries);
    free(l->positions);
    memset(l, 0, sizeof *l);
}

/* ---- Uuid --------------------------------------------------------------- */

static const char B64URL[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

void kf_uuid_to_b64(const uint8_t uuid[16], char out[23])
{
    size_t o = 0;
    int i = 0;
    for (; i + 3 <= 15; i += 3) {
        uint32_t v = (uint32_t)uuid[i] << 16 | (uint32_t)uuid[i + 1] << 8 | uuid[i + 2];
        out[o++] = B64URL[v >> 18];
        out[o++] = B64URL[(v >> 12) & 63];
        out[o++] = B64URL[(v >> 6) & 63];
        out[o++] = B64URL[v & 63];
    }
    /* one byte left (15 = 5 * 3): two characters, no padding */
    uint32_t v = (uint32_t)uuid[15] << 16;
    out[o++] = B64URL[v >> 18];
    out[o++] = B64URL[(v >> 12) & 63];
    out[o] = 0;
}

static int b64url_val(uint8_t ch)
{
    if (ch >= 'A' && ch <= 'Z')
        return ch - 'A';
    if (ch >= 'a' && ch <= 'z')
        return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9')
        return ch - '0' + 52;
    if (ch == '-')
        return 62;
    if (ch == '_')
        return 63;
    return -1;
}

/* Like java.util.Base64's URL decoder, the 4 unused low bits of the last
 * character are not required to be zero. */
int kf_uuid_from_b64(const char *s, size_t len, uint8_t uuid[16])
{
    if (!s || len != 22)
        return -1;
    uint32_t acc = 0;
    int bits = 0, o = 0;
    for (size_t i = 0; i < 22; i++) {
        int v = b64url_val((uint8_t)s[i]);
        if (v < 0)
            return -1;
        acc = (acc << 6 | (uint32_t)v) & 0xffffff;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (o < 16)
                uuid[o++] = (uint8_t)(acc >> bits);
        }
    }
    return o == 16 ? 0 : -1;
}

/* Uuid.fromString: 22 characters, or 24 ending in "==" (the decoder takes padding). */
static int uuid_parse_java(const uint8_t *s, size_t len, uint8_t uuid[16])
{
    if (len == 24 && s[22] == '=' && s[23] == '=')
        len = 22;
    return kf_uuid_from_b64((const char *)s, len, uuid);
}

static bool uuid_is_zero(const uint8_t u[16])
{
    for (int i = 0; i < 16; i++)
        if (u[i])
            return false;
    return true;
}

/* ---- partition.metadata -------------------------------------------------- */

/* Split "key:\s+value" at the first ':' followed by whitespace (Java's
 * line.split(":\\s+", 2)); false when there is no such separator. */
static bool split_colon(const uint8_t *p, size_t n, size_t *klen, size_t *vstart)
{
    for (size_t i = 0; i + 1 < n; i++) {
        if (p[i] == ':' && is_ws(p[i + 1])) {
            size_t j = i + 1;
            while (j < n && is_ws(p[j]))
                j++;
            *klen = i;
            *vstart = j;
            return true;
        }
    }
    return false;
}

static bool key_is(const uint8_t *p, size_t n, const char *key) { return n == strlen(key) && memcmp(p, key, n) == 0; }

int kf_partition_metadata_parse(const uint8_t *data, uint64_t size, kf_partition_metadata *pm, char *msg,
                                size_t msglen)
{
    memset(pm, 0, sizeof *pm);
    pm->version = -1;
    set_msg(msg, msglen, "ok");
    lines L = {.d = data, .n = data ? size : 0, .pos = 0};
    uint64_t ls, ll;
    size_t klen, vs;
    int64_t v;
    char ex[80];

    if (!next_line(&L, &ls, &ll)) {
        set_msg(msg, msglen, "empty file: missing the version line");
        return KF_ERR_CORRUPT;
    }
    const uint8_t *p = data + ls;
    excerpt(p, ll, ex, sizeof ex);
    if (!split_colon(p, (size_t)ll, &klen, &vs) || !key_is(p, klen, "version")) {
        set_msg(msg, msglen, "malformed line \"%s\": expected \"version: N\"", ex);
        return KF_ERR_CORRUPT;
    }
    if (!parse_int(p + vs, (size_t)ll - vs, INT32_MIN, INT32_MAX, &v)) {
        set_msg(msg, msglen, "malformed line \"%s\": the version is not an integer", ex);
        return KF_ERR_CORRUPT;
    }
    pm->version = (int32_t)v;
    if (v < 0) {
        set_msg(msg, msglen, "unrecognized version of partition metadata file: %" PRId64, v);
        return KF_ERR_CORRUPT;
    }
    if (!next_line(&L, &ls, &ll)) {
        set_msg(msg, msglen, "missing the topic_id line");
        return KF_ERR_CORRUPT;
    }
    p = data + ls;
    excerpt(p, ll, ex, sizeof ex);
    if (!split_colon(p, (size_t)ll, &klen, &vs) || !key_is(p, klen, "topic_id")) {
        set_msg(msg, msglen, "malformed line \"%s\": expected \"topic_id: <uuid>\"", ex);
        return KF_ERR_CORRUPT;
    }
    if (uuid_parse_java(p + vs, (size_t)ll - vs, pm->topic_id) != 0) {
        set_msg(msg, msglen, "malformed line \"%s\": the topic id is not a 22-character base64 Uuid", ex);
        memset(pm->topic_id, 0, sizeof pm->topic_id);
        return KF_ERR_CORRUPT;
    }
    kf_uuid_to_b64(pm->topic_id, pm->topic_id_b64);
    if (uuid_is_zero(pm->topic_id)) {
        set_msg(msg, msglen, "invalid topic id %s (the all-zero Uuid)", pm->topic_id_b64);
        return KF_ERR_CORRUPT;
    }
    return KF_OK;
}

/* ---- meta.properties (java.util.Properties.load) -------------------------- */

static bool prop_ws(uint8_t c) { return c == ' ' || c == '\t' || c == '\f'; }

/* Raw characters of one logical line: natural lines joined where a line ends
 * in an odd number of backslashes (leading whitespace of the continuation
 * skipped). */
typedef struct praw {
    const uint8_t *d;
    uint64_t n;
    uint64_t pos, seg_end, next;
    bool cont;
} praw;

/* Set up the natural line starting at s (already past leading whitespace). */
static void praw_segment(praw *r, uint64_t s)
{
    uint64_t e = s;
    while (e < r->n && r->d[e] != '\n' && r->d[e] != '\r')
        e++;
    uint64_t nx = e;
    if (nx < r->n) {
        if (r->d[nx] == '\r' && nx + 1 < r->n && r->d[nx + 1] == '\n')
            nx += 2;
        else
            nx++;
    }
    uint64_t bs = 0;
    while (e - bs > s && r->d[e - bs - 1] == '\\')
        bs++;
    r->pos = s;
    r->cont = (bs & 1) != 0;
    r->seg_end = r->cont ? e - 1 : e;
    r->next = nx;
}

static int praw_get(praw *r)
{
    for (;;) {
        if (r->pos < r->seg_end)
            return r->d[r->pos++];
        if (!r->cont || r->next >= r->n)
            return -1;
        uint64_t s = r->next;
        while (s < r->n && prop_ws(r->d[s]))
            s++;
        praw_segment(r, s);
    }
}

typedef struct pbuf {
    char s[256];
    size_t len;
    bool overflow;
} pbuf;

static void pbuf_put(pbuf *b, uint32_t cp)
{
    uint8_t u[4];
    size_t k;
    if (cp < 0x80) {
        u[0] = (uint8_t)cp;
        k = 1;
    } else if (cp < 0x800) {
        u[0] = (uint8_t)(0xc0 | cp >> 6);
        u[1] = (uint8_t)(0x80 | (cp & 0x3f));
        k = 2;
    } else {
        u[0] = (uint8_t)(0xe0 | cp >> 12);
        u[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
        u[2] = (uint8_t)(0x80 | (cp & 0x3f));
        k = 3;
    }
    if (b->len + k >= sizeof b->s) {
        b->overflow = true;
        return;
    }
    memcpy(b->s + b->len, u, k);
    b->len += k;
    b->s[b->len] = 0;
}

/* Reads the char after a backslash (loadConvert). Returns the code point,
 * or -1 at end of line, -2 for a malformed \uxxxx. */
static int32_t prop_escape(praw *r)
{
    int c = praw_get(r);
    if (c < 0)
        return -1;
    switch (c) {
    case 't': return '\t';
    case 'r': return '\r';
    case 'n': return '\n';
    case 'f': return '\f';
    case 'u': {
        uint32_t v = 0;
        for (int i = 0; i < 4; i++) {
            int h = praw_get(r);
            if (h >= '0' && h <= '9')
                v = v << 4 | (uint32_t)(h - '0');
            else if (h >= 'a' && h <= 'f')
                v = v << 4 | (uint32_t)(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F')
                v = v << 4 | (uint32_t)(h - 'A' + 10);
            else
                return -2;
        }
        return (int32_t)v;
    }
    default: return c;
    }
}

typedef struct pval {
    char s[64];
    bool present, overflow;
} pval;

static void pval_set(pval *v, const pbuf *b)
{
    v->present = true;
    v->overflow = b->overflow || b->len >= sizeof v->s;
    size_t n = v->overflow ? 0 : b->len;
    memcpy(v->s, b->s, n);
    v->s[n] = 0;
}

static bool pval_int(const pval *v, int32_t *out)
{
    int64_t x;
    if (!v->present || v->overflow || !parse_int((const uint8_t *)v->s, strlen(v->s), INT32_MIN, INT32_MAX, &x))
        return false;
    *out = (int32_t)x;
    return true;
}

int kf_meta_properties_parse(const uint8_t *data, uint64_t size, kf_meta_properties *mp, char *msg, size_t msglen)
{
    memset(mp, 0, sizeof *mp);
    set_msg(msg, msglen, "ok");
    pval pver = {0}, pbroker = {0}, pnode = {0}, pcluster = {0}, pdir = {0};
    praw r = {.d = data, .n = data ? size : 0};
    uint64_t pos = 0;
    pbuf key, val;

    while (pos < r.n) {
        /* Skip whitespace and blank lines to the start of a logical line. */
        uint8_t c = r.d[pos];
        if (prop_ws(c) || c == '\n' || c == '\r') {
            pos++;
            continue;
        }
        if (c == '#' || c == '!') {
            while (pos < r.n && r.d[pos] != '\n' && r.d[pos] != '\r')
                pos++;
            continue;
        }
        praw_segment(&r, pos);
        key.len = val.len = 0;
        key.overflow = val.overflow = false;
        key.s[0] = val.s[0] = 0;
        /* Key: up to an unescaped '=', ':' or whitespace. */
        int ch;
        bool has_sep = false, bad_escape = false;
        for (;;) {
            ch = praw_get(&r);
            if (ch < 0)
                break;
            if (ch == '\\') {
                int32_t e = prop_escape(&r);
                if (e == -1)
                    break;
                if (e == -2) {
                    bad_escape = true;
                    break;
                }
                pbuf_put(&key, (uint32_t)e);
                continue;
            }
            if (ch == '=' || ch == ':') {
                has_sep = true;
                ch = praw_get(&r);
                break;
            }
            if (prop_ws((uint8_t)ch)) {
                ch = praw_get(&r);
                break;
            }
            pbuf_put(&key, (uint32_t)ch);
        }
        /* Whitespace, at most one separator, whitespace. */
        while (!bad_escape && ch >= 0) {
            if (prop_ws((uint8_t)ch)) {
                ch = praw_get(&r);
            } else if (!has_sep && (ch == '=' || ch == ':')) {
                has_sep = true;
                ch = praw_get(&r);
            } else {
                break;
            }
        }
        /* Value: the rest of the logical line. */
        while (!bad_escape && ch >= 0) {
            if (ch == '\\') {
                int32_t e = prop_escape(&r);
                if (e == -1)
                    break;
                if (e == -2) {
                    bad_escape = true;
                    break;
                }
                pbuf_put(&val, (uint32_t)e);
            } else {
                pbuf_put(&val, (uint32_t)ch);
            }
            ch = praw_get(&r);
        }
        if (bad_escape) {
            set_msg(msg, msglen, "malformed \\uxxxx encoding in the line at byte %" PRIu64, pos);
            return KF_ERR_CORRUPT;
        }
        pos = r.next;
        if (key.overflow)
            continue; /* not a key we know */
        if (strcmp(key.s, "version") == 0)
            pval_set(&pver, &val);
        else if (strcmp(key.s, "broker.id") == 0)
            pval_set(&pbroker, &val);
        else if (strcmp(key.s, "node.id") == 0)
            pval_set(&pnode, &val);
        else if (strcmp(key.s, "cluster.id") == 0)
            pval_set(&pcluster, &val);
        else if (strcmp(key.s, "directory.id") == 0)
            pval_set(&pdir, &val);
    }

    int32_t ver = 0;
    if (pver.present && !pval_int(&pver, &ver)) {
        set_msg(msg, msglen, "version \"%s\" is not an integer", pver.overflow ? "(overlong)" : pver.s);
        return KF_ERR_CORRUPT;
    }
    mp->version = ver;
    if (ver != 0 && ver != 1) {
        set_msg(msg, msglen, "unknown meta.properties version number %" PRId32, ver);
        return KF_ERR_CORRUPT;
    }
    int32_t id;
    if (pbroker.present) {
        if (pval_int(&pbroker, &id)) {
            mp->has_broker_id = true;
            mp->broker_id = id;
        } else if (ver == 0) {
            set_msg(msg, msglen, "broker.id \"%s\" is not an integer", pbroker.overflow ? "(overlong)" : pbroker.s);
            return KF_ERR_CORRUPT;
        }
    }
    if (pnode.present) {
        if (pval_int(&pnode, &id)) {
            mp->has_node_id = true;
            mp->node_id = id;
        } else if (ver == 1) {
            set_msg(msg, msglen, "node.id \"%s\" is not an integer", pnode.overflow ? "(overlong)" : pnode.s);
            return KF_ERR_CORRUPT;
        }
    }
    if (pcluster.present) {
        if (pcluster.overflow) {
            set_msg(msg, msglen, "cluster.id is longer than %zu bytes", sizeof mp->cluster_id - 1);
            return KF_ERR_CORRUPT;
        }
        memcpy(mp->cluster_id, pcluster.s, sizeof mp->cluster_id);
    }
    if (pdir.present) {
        uint8_t u[16];
        if (pdir.overflow || uuid_parse_java((const uint8_t *)pdir.s, strlen(pdir.s), u) != 0) {
            set_msg(msg, msglen, "directory.id \"%s\" is not a Uuid", pdir.overflow ? "(overlong)" : pdir.s);
            return KF_ERR_CORRUPT;
        }
        kf_uuid_to_b64(u, mp->directory_id);
        /* DirectoryId.reserved: most significant half 0, least significant < 100 (signed). */
        uint64_t msb = 0, lsb = 0;
        for (int i = 0; i < 8; i++) {
            msb = msb << 8 | u[i];
            lsb = lsb << 8 | u[8 + i];
        }
        if (msb == 0 && (lsb >= (uint64_t)1 << 63 || lsb < 100)) {
            set_msg(msg, msglen, "directory.id %s is a reserved Uuid", mp->directory_id);
            return KF_ERR_CORRUPT;
        }
    }
    if (ver == 1) {
        if (!pnode.present) {
            set_msg(msg, msglen, "node.id was not found (required in version 1)");
            return KF_ERR_CORRUPT;
        }
        if (!pcluster.present) {
            set_msg(msg, msglen, "cluster.id was not found (required in version 1)");
            return KF_ERR_CORRUPT;
        }
    }
    return KF_OK;
}
