/* connect.c: `kfsck offsets --connect`: Kafka Connect source-connector
 * offsets from the Connect offsets topic (consumer-offsets.md §13). Keys are
 * JSON `[connector, {partition}]`, values JSON `{offset}`; last write wins
 * per exact key bytes, a null value deletes; exactly-once source connectors
 * write transactionally, so staged writes apply at COMMIT and drop at ABORT.
 * The JSON is checked strictly (it is copied into our own JSON output). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/partitions.h"
#include "bytes/htab.h"

/* ---- a strict JSON scanner ------------------------------------------------ */

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

static size_t json_number(const uint8_t *p, size_t n, size_t i)
{
    size_t s = i;
    if (i < n && p[i] == '-')
        i++;
    size_t d = i;
    while (i < n && p[i] >= '0' && p[i] <= '9')
        i++;
    if (i == d)
        return 0;
    if (i < n && p[i] == '.') {
        size_t f = ++i;
        while (i < n && p[i] >= '0' && p[i] <= '9')
            i++;
        if (i == f)
            return 0;
    }
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        if (i < n && (p[i] == '+' || p[i] == '-'))
            i++;
        size_t e = i;
        while (i < n && p[i] >= '0' && p[i] <= '9')
            i++;
        if (i == e)
            return 0;
    }
    return i > s ? i : 0;
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

bool json_text_valid(const uint8_t *p, size_t n) { return json_whole(p, n, false); }

/* key `[ "connector", {partition} ]`: connector string span and partition span */
static bool parse_key(const uint8_t *p, size_t n, size_t *cs, size_t *ce, size_t *ps, size_t *pe)
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

/* ---- replay ----------------------------------------------------------------- */

typedef struct centry {
    uint8_t *value;        /* NULL: staged tombstone */
    uint32_t vlen;
    int32_t partition;
    int64_t offset;
} centry;

typedef struct staged_w {
    int64_t pid;
    uint8_t *key;
    uint32_t klen;
    centry e;
} staged_w;

typedef struct connect_run {
    htab table;
    staged_w *staged;
    size_t nstaged, capstaged;
    int32_t partition;
    kf_buf buf;
    size_t max_batch;
    report *rep;
    uint64_t bad;
} connect_run;

static void put(connect_run *c, const uint8_t *key, uint32_t klen, const centry *e)
{
    if (!e->value) {
        centry *old = htab_del(&c->table, key, klen);
        if (old) {
            free(old->value);
            free(old);
        }
        return;
    }
    void **slot = htab_put(&c->table, key, klen, NULL);
    centry *n = malloc(sizeof *n);
    if (!slot || !n) {
        fputs("kfsck: out of memory\n", stderr);
        exit(EXIT_FAIL);
    }
    *n = *e;
    if (*slot) {
        free(((centry *)*slot)->value);
        free(*slot);
    }
    *slot = n;
}

static uint8_t *dup_bytes(const uint8_t *p, size_t n)
{
    uint8_t *d = malloc(n ? n : 1);
    if (!d) {
        fputs("kfsck: out of memory\n", stderr);
        exit(EXIT_FAIL);
    }
    if (n)
        memcpy(d, p, n);
    return d;
}

static void end_txn(connect_run *c, int64_t pid, bool commit)
{
    size_t k = 0;
    for (size_t i = 0; i < c->nstaged; i++) {
        staged_w *s = &c->staged[i];
        if (s->pid != pid) {
            c->staged[k++] = *s;
            continue;
        }
        if (commit)
            put(c, s->key, s->klen, &s->e);
        else
            free(s->e.value);
        free(s->key);
    }
    c->nstaged = k;
}

static int connect_batch(void *ctx, kf_batch *b)
{
    connect_run *c = ctx;
    kf_record_iter it;
    if (kf_records_begin(&it, b, &c->buf, c->max_batch) != KF_OK) {
        kf_report(report_problem, c->rep, it.err_code ? it.err_code : KF_P_BAD_RECORD, KF_SEV_ERROR, b->position,
                  true, b->base_offset, "batch skipped: %s", it.err_msg);
        c->bad++;
        return 0;
    }
    kf_record r;
    while (kf_records_next(&it, &r) == 1) {
        if (b->control) {
            kf_control ctl;
            if (kf_control_parse(&r, &ctl) == KF_OK && (ctl.type == KF_CONTROL_COMMIT || ctl.type == KF_CONTROL_ABORT))
                end_txn(c, b->producer_id, ctl.type == KF_CONTROL_COMMIT);
            continue;
        }
        size_t cs, ce, ps, pe;
        if (r.key_len < 0 || !parse_key(r.key, (size_t)r.key_len, &cs, &ce, &ps, &pe) ||
            (r.value_len >= 0 && !json_whole(r.value, (size_t)r.value_len, true))) {
            kf_report(report_problem, c->rep, KF_P_BAD_CONNECT_RECORD, KF_SEV_WARNING, b->position, true, r.offset,
                      "offset %lld: key is not [connector, {partition}] JSON or value is not a JSON object; skipped",
                      (long long)r.offset);
            continue;
        }
        centry e = {r.value_len >= 0 ? dup_bytes(r.value, (size_t)r.value_len) : NULL,
                    r.value_len >= 0 ? (uint32_t)r.value_len : 0, c->partition, r.offset};
        if (b->transactional && b->producer_id >= 0) {
            if (c->nstaged == c->capstaged) {
                c->capstaged = c->capstaged ? c->capstaged * 2 : 16;
                staged_w *ns = realloc(c->staged, c->capstaged * sizeof *ns);
                if (!ns) {
                    fputs("kfsck: out of memory\n", stderr);
                    exit(EXIT_FAIL);
                }
                c->staged = ns;
            }
            c->staged[c->nstaged++] = (staged_w){b->producer_id, dup_bytes(r.key, (size_t)r.key_len),
                                                 (uint32_t)r.key_len, e};
        } else {
            put(c, r.key, (uint32_t)r.key_len, &e);
        }
    }
    return 0;
}

static int cmp_entries(const void *a, const void *b)
{
    const htab_entry *x = *(const htab_entry *const *)a, *y = *(const htab_entry *const *)b;
    uint32_t n = x->klen < y->klen ? x->klen : y->klen;
    int c = memcmp(x->key, y->key, n);
    return c ? c : (x->klen < y->klen ? -1 : x->klen > y->klen);
}

int connect_offsets(const kf_inputs *in, const char *topic, uint64_t max_batch_bytes, bool json, out *o, out *perr)
{
    report rep = {perr, topic, 0, 0};
    connect_run c = {0};
    c.max_batch = (size_t)max_batch_bytes;
    c.rep = &rep;
    uint64_t uncovered = 0, found = 0, open = 0;
    for (size_t i = 0; i < in->n; i++) {
        const kf_partition *p = &in->parts[i];
        if (strcmp(p->topic, topic) != 0)
            continue;
        found++;
        c.partition = p->partition;
        kf_part_result ur;
        report prep = {perr, NULL, 0, 0};
        kf_part_reader *u = part_reader_open(p, c.max_batch, &prep);
        kf_batch b;
        int rc;
        while ((rc = kf_part_reader_next(u, &b)) == 1)
            connect_batch(&c, &b);
        if (rc < 0) {
            fputs("kfsck: out of memory\n", stderr);
            exit(EXIT_FAIL);
        }
        kf_part_reader_close(u, &ur);
        rep.errors += ur.errors;
        rep.warnings += ur.warnings;
        uncovered += ur.uncovered + (ur.unreadable ? 1 : 0);
        open += c.nstaged;
        for (size_t k = 0; k < c.nstaged; k++) {
            free(c.staged[k].key);
            free(c.staged[k].e.value);
        }
        c.nstaged = 0;
    }
    if (!found)
        fprintf(stderr, "kfsck: no partition of the Connect offsets topic '%s' found under the given paths\n", topic);
    if (open)
        fprintf(stderr, "kfsck: %s: %llu offset writes staged in transactions with no COMMIT or ABORT were not applied\n",
                topic, (unsigned long long)open);
    htab_entry **rows = malloc((c.table.n ? c.table.n : 1) * sizeof *rows);
    if (!rows)
        return EXIT_FAIL;
    size_t n = 0;
    for (size_t i = 0; i < c.table.cap; i++)
        if (c.table.e[i].key)
            rows[n++] = &c.table.e[i];
    qsort(rows, n, sizeof *rows, cmp_entries);
    for (size_t i = 0; i < n; i++) {
        const uint8_t *k = rows[i]->key;
        centry *e = rows[i]->val;
        size_t cs, ce, ps, pe;
        parse_key(k, rows[i]->klen, &cs, &ce, &ps, &pe);
        if (json) {
            fprintf(o->f, "{\"type\":\"connect_offset\",\"connector\":%.*s,\"partition\":%.*s,\"offset\":%.*s,"
                          "\"source_partition\":%d,\"source_offset\":%lld}\n",
                    (int)(ce - cs), (const char *)k + cs, (int)(pe - ps), (const char *)k + ps, (int)e->vlen,
                    (const char *)e->value, e->partition, (long long)e->offset);
        } else {
            fprintf(o->f, "%.*s %.*s %.*s\n", (int)(ce - cs), (const char *)k + cs, (int)(pe - ps),
                    (const char *)k + ps, (int)e->vlen, (const char *)e->value);
        }
        free(e->value);
        free(e);
    }
    free(rows);
    htab_free(&c.table);
    free(c.staged);
    kf_buf_free(&c.buf);
    return (uncovered || c.bad) ? EXIT_DAMAGE : EXIT_CLEAN;
}
