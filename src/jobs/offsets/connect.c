/* connect.c: Kafka Connect source offsets (include/kfsck/connect.h). */
#include "bytes/grow.h"
#include "bytes/opts.h"
#include "kfsck/connect.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
#include "bytes/htab.h"
#include "records/json.h"

typedef struct centry {
    uint8_t *value;        /* NULL: a staged tombstone */
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

struct kf_connect {
    kf_connect_opts o;
    htab table;            /* key bytes -> centry* */
    staged_w *staged;
    size_t nstaged, capstaged;
    int32_t partition;
    kf_buf buf;
    uint64_t open_writes, bad;
    kf_connect_offset *rows;
    int err;
};

void kf_connect_opts_init(kf_connect_opts *o)
{
    *o = (kf_connect_opts)KF_CONNECT_OPTIONS_INIT;
}

int kf_connect_new(kf_connect **out, const kf_connect_opts *o)
{
    return KF_OPTS_NEW(out, kf_connect, o, KF_CONNECT_OPTIONS_VERSION, max_batch_bytes);
}

static void drop_staged(kf_connect *c)
{
    for (size_t k = 0; k < c->nstaged; k++) {
        free(c->staged[k].key);
        free(c->staged[k].e.value);
    }
    c->open_writes += c->nstaged;
    c->nstaged = 0;
}

void kf_connect_free(kf_connect *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->table.cap; i++)
        if (c->table.e[i].key) {
            centry *e = c->table.e[i].val;
            free(e->value);
            free(e);
        }
    htab_free(&c->table);
    for (size_t k = 0; k < c->nstaged; k++) {
        free(c->staged[k].key);
        free(c->staged[k].e.value);
    }
    free(c->staged);
    free(c->rows);
    kf_buf_free(&c->buf);
    free(c);
}

void kf_connect_partition(kf_connect *c, int32_t partition)
{
    drop_staged(c); /* a transaction never spans the offsets topic's partitions' logs */
    c->partition = partition;
}

static void put(kf_connect *c, const uint8_t *key, uint32_t klen, const centry *e)
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
        free(n);
        free(e->value);
        c->err = KF_ERR_NOMEM;
        return;
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
    if (d && n)
        memcpy(d, p, n);
    return d;
}

static void end_txn(kf_connect *c, int64_t pid, bool commit)
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

static void stage(kf_connect *c, int64_t pid, const uint8_t *key, uint32_t klen, const centry *e)
{
    if (!KF_GROW(c->staged, c->nstaged, c->capstaged, 16)) {
        free(e->value);
        c->err = KF_ERR_NOMEM;
        return;
    }
    uint8_t *k = dup_bytes(key, klen);
    if (!k) {
        free(e->value);
        c->err = KF_ERR_NOMEM;
        return;
    }
    c->staged[c->nstaged++] = (staged_w){pid, k, klen, *e};
}

int kf_connect_batch(kf_connect *c, kf_batch *b)
{
    kf_record_iter it;
    if (kf_records_begin(&it, b, &c->buf, c->o.max_batch_bytes) != KF_OK) {
        kf_report(c->o.problem_fn, c->o.problem_ctx, it.err_code ? it.err_code : KF_P_BAD_RECORD, KF_SEV_ERROR,
                  b->position, true, b->base_offset, "batch skipped: %s", it.err_msg);
        c->bad++;
        return KF_OK;
    }
    kf_record r;
    while (!c->err && kf_records_next(&it, &r) == 1) {
        if (b->control) {
            kf_control ctl;
            if (kf_control_parse(&r, &ctl) == KF_OK && (ctl.type == KF_CONTROL_COMMIT || ctl.type == KF_CONTROL_ABORT))
                end_txn(c, b->producer_id, ctl.type == KF_CONTROL_COMMIT);
            continue;
        }
        size_t cs, ce, ps, pe;
        if (r.key_len < 0 || !kf_connect_key_parse(r.key, (size_t)r.key_len, &cs, &ce, &ps, &pe) ||
            (r.value_len >= 0 && !kf_json_object_valid(r.value, (size_t)r.value_len))) {
            kf_report(c->o.problem_fn, c->o.problem_ctx, KF_P_BAD_CONNECT_RECORD, KF_SEV_WARNING, b->position, true,
                      r.offset,
                      "offset %lld: key is not [connector, {partition}] JSON or value is not a JSON object; skipped",
                      (long long)r.offset);
            continue;
        }
        centry e = {NULL, 0, c->partition, r.offset};
        if (r.value_len >= 0) {
            if (!(e.value = dup_bytes(r.value, (size_t)r.value_len))) {
                c->err = KF_ERR_NOMEM;
                break;
            }
            e.vlen = (uint32_t)r.value_len;
        }
        if (b->transactional && b->producer_id >= 0)
            stage(c, b->producer_id, r.key, (uint32_t)r.key_len, &e);
        else
            put(c, r.key, (uint32_t)r.key_len, &e);
    }
    return kf_error_sticky(c->err);
}

typedef struct row_key {
    const uint8_t *key;
    uint32_t klen;
    centry *e;
} row_key;

static int cmp_row_keys(const void *a, const void *b)
{
    const row_key *x = a, *y = b;
    uint32_t n = x->klen < y->klen ? x->klen : y->klen;
    int c = memcmp(x->key, y->key, n);
    return c ? c : (x->klen < y->klen ? -1 : x->klen > y->klen);
}

int kf_connect_offsets(kf_connect *c, const kf_connect_offset **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    size_t n = 0;
    row_key *keys = malloc((c->table.n ? c->table.n : 1) * sizeof *keys);
    kf_connect_offset *rows = realloc(c->rows, (c->table.n ? c->table.n : 1) * sizeof *rows);
    if (!keys || !rows) {
        free(keys);
        if (rows)
            c->rows = rows;
        return kf_error_nomem();
    }
    c->rows = rows;
    for (size_t i = 0; i < c->table.cap; i++)
        if (c->table.e[i].key)
            keys[n++] = (row_key){c->table.e[i].key, c->table.e[i].klen, c->table.e[i].val};
    qsort(keys, n, sizeof *keys, cmp_row_keys);
    for (size_t i = 0; i < n; i++) {
        size_t cs = 0, ce = 0, ps = 0, pe = 0;
        kf_connect_key_parse(keys[i].key, keys[i].klen, &cs, &ce, &ps, &pe);
        rows[i] = (kf_connect_offset){keys[i].key + cs, keys[i].key + ps, keys[i].e->value, ce - cs, pe - ps,
                                      keys[i].e->vlen, keys[i].e->partition, keys[i].e->offset};
    }
    free(keys);
    *out = rows;
    *count = n;
    return KF_OK;
}

uint64_t kf_connect_open_writes(const kf_connect *c) { return c->open_writes + c->nstaged; }

uint64_t kf_connect_bad_batches(const kf_connect *c) { return c->bad; }
