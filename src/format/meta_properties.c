/* meta_properties.c: the parser of meta.properties (docs/formats.md
 * §7.4), in java.util.Properties.load's syntax: logical lines joined at
 * odd trailing backslashes, comments, key and value separated by '=', ':'
 * or whitespace, escapes; then the fields the broker reads from it. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
#include "format/source.h"
#include "format/checkpoint_text.h"
#include "kfsck/sys/checkpoint.h"

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
    size_t k = kf_text_utf8(cp, u);
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

/* After a backslash: the escaped character into b. False at the end of the
 * line, and for a malformed \uxxxx (then *bad is set). */
static bool put_escaped(praw *r, pbuf *b, bool *bad)
{
    int32_t e = prop_escape(r);
    if (e < 0) {
        if (e == -2)
            *bad = true;
        return false;
    }
    pbuf_put(b, (uint32_t)e);
    return true;
}

typedef struct pval {
    char s[64];
    bool present, overflow;
    bool changed;     /* set again with another value (Properties.load keeps the last) */
    char first[64];   /* then the value it had first */
} pval;

static void pval_set(pval *v, const pbuf *b)
{
    if (v->present && !v->changed && (b->overflow || b->len >= sizeof v->s || v->overflow ||
                                      strlen(v->s) != b->len || memcmp(v->s, b->s, b->len))) {
        v->changed = true;
        snprintf(v->first, sizeof v->first, "%s", v->overflow ? "(overlong)" : v->s);
    }
    v->present = true;
    v->overflow = b->overflow || b->len >= sizeof v->s;
    size_t n = v->overflow ? 0 : b->len;
    memcpy(v->s, b->s, n);
    v->s[n] = 0;
}

static bool pval_int(const pval *v, int32_t *out)
{
    int64_t x;
    if (!v->present || v->overflow || !kf_text_parse_int((const uint8_t *)v->s, strlen(v->s), INT32_MIN, INT32_MAX, &x))
        return false;
    *out = (int32_t)x;
    return true;
}

/* The values of the keys meta.properties may hold. */
typedef struct props {
    pval pver, pbroker, pnode, pcluster, pdir;
} props;

/* Properties.load over data: the values of the keys we know into pr.
 * KF_ERR_CORRUPT (the reason is the last error) on a malformed escape. */
static int props_load(const uint8_t *data, uint64_t size, props *pr)
{
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
                if (!put_escaped(&r, &key, &bad_escape))
                    break;
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
                if (!put_escaped(&r, &val, &bad_escape))
                    break;
            } else {
                pbuf_put(&val, (uint32_t)ch);
            }
            ch = praw_get(&r);
        }
        if (bad_escape)
            return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "malformed \\uxxxx encoding in the line at byte %" PRIu64,
                                pos);
        pos = r.next;
        if (key.overflow)
            continue; /* not a key we know */
        if (strcmp(key.s, "version") == 0)
            pval_set(&pr->pver, &val);
        else if (strcmp(key.s, "broker.id") == 0)
            pval_set(&pr->pbroker, &val);
        else if (strcmp(key.s, "node.id") == 0)
            pval_set(&pr->pnode, &val);
        else if (strcmp(key.s, "cluster.id") == 0)
            pval_set(&pr->pcluster, &val);
        else if (strcmp(key.s, "directory.id") == 0)
            pval_set(&pr->pdir, &val);
    }
    return KF_OK;
}

/* An id's value v (broker.id, node.id) into *has and *id when it is an
 * integer. False, with the reason as the last error, when it is there
 * but not an integer and the version in use requires it. */
static bool props_id(const pval *v, const char *name, bool required, bool *has, int32_t *id)
{
    if (!v->present)
        return true;
    int32_t x;
    if (pval_int(v, &x)) {
        *has = true;
        *id = x;
    } else if (required) {
        kf_error_set(KF_ERR_CORRUPT, 0, NULL, "%s \"%s\" is not an integer", name, v->overflow ? "(overlong)" : v->s);
        return false;
    }
    return true;
}

/* The fields of meta.properties from its values, checked as the broker
 * checks them (MetaProperties). */
static int props_fields(const props *pr, kf_meta_properties *mp)
{
    const pval *pver = &pr->pver, *pbroker = &pr->pbroker, *pnode = &pr->pnode, *pcluster = &pr->pcluster,
               *pdir = &pr->pdir;
    int32_t ver = 0;
    if (pver->present && !pval_int(pver, &ver))
        return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "version \"%s\" is not an integer",
                            pver->overflow ? "(overlong)" : pver->s);
    mp->version = ver;
    if (ver != 0 && ver != 1)
        return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "unknown meta.properties version number %" PRId32, ver);
    if (!props_id(pbroker, "broker.id", ver == 0, &mp->has_broker_id, &mp->broker_id) ||
        !props_id(pnode, "node.id", ver == 1, &mp->has_node_id, &mp->node_id))
        return KF_ERR_CORRUPT;
    if (pcluster->present) {
        if (pcluster->overflow)
            return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "cluster.id is longer than %zu bytes",
                                sizeof mp->cluster_id - 1);
        memcpy(mp->cluster_id, pcluster->s, sizeof mp->cluster_id);
    }
    if (pdir->present) {
        uint8_t u[16];
        if (pdir->overflow || kf_uuid_parse_java((const uint8_t *)pdir->s, strlen(pdir->s), u) != 0)
            return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "directory.id \"%s\" is not a Uuid",
                                pdir->overflow ? "(overlong)" : pdir->s);
        kf_uuid_to_b64(u, mp->directory_id);
        /* DirectoryId.reserved: most significant half 0, least significant < 100 (signed). */
        uint64_t msb = 0, lsb = 0;
        for (int i = 0; i < 8; i++) {
            msb = msb << 8 | u[i];
            lsb = lsb << 8 | u[8 + i];
        }
        if (msb == 0 && (lsb >= (uint64_t)1 << 63 || lsb < 100))
            return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "directory.id %s is a reserved Uuid", mp->directory_id);
    }
    if (ver == 1) {
        if (!pnode->present)
            return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "node.id was not found (required in version 1)");
        if (!pcluster->present)
            return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "cluster.id was not found (required in version 1)");
    }
    return KF_OK;
}

int kf_meta_properties_parse(const uint8_t *data, uint64_t size, kf_meta_properties *mp)
{
    memset(mp, 0, sizeof *mp);
    props pr = {0};
    int rc = props_load(data, size, &pr);
    if (rc != KF_OK)
        return rc;
    const pval *vals[] = {&pr.pver, &pr.pbroker, &pr.pnode, &pr.pcluster, &pr.pdir};
    static const char *const names[] = {"version", "broker.id", "node.id", "cluster.id", "directory.id"};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0] && !mp->repeated[0]; i++)
        if (vals[i]->changed)
            snprintf(mp->repeated, sizeof mp->repeated,
                     "%s is set more than once, first to \"%s\", last to \"%s\": the broker reads the last "
                     "(Properties.load)",
                     names[i], vals[i]->first, vals[i]->overflow ? "(overlong)" : vals[i]->s);
    /* the cluster the file names, even when its other lines are refused */
    if (pr.pcluster.present && !pr.pcluster.overflow)
        memcpy(mp->cluster_id, pr.pcluster.s, sizeof mp->cluster_id);
    return props_fields(&pr, mp);
}

int kf_meta_properties_read(const char *path, kf_meta_properties *mp)
{
    memset(mp, 0, sizeof *mp);
    kf_file_contents m;
    int rc = kf_file_read_meta(path, "meta.properties", &m.data, &m.size);
    if (rc != KF_OK)
        return rc;
    rc = kf_meta_properties_parse(m.data, m.size, mp);
    free(m.data);
    return rc;
}
