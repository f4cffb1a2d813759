/* coord_decode.c: the decoder of coordinator records (__consumer_offsets,
 * __transaction_state, __share_group_state; docs/formats.md §1.2, §1.3,
 * §11.1): the key type picks the record's schemas, the key and the value
 * body are read by the schema walker (coord_walk.c), a value body is tried
 * with the other layouts Kafka's history gave its version when the first
 * does not decode cleanly (cs_decode_body, shared with the KRaft decoder),
 * and the outcome is a kf_coord_record with the first error and its
 * position, and the problem code it maps to. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "records/coord_walk.h"
#include "kfsck/sys/coord.h"
#include "bytes/cursor.h"
#include "bytes/error.h"

static void set_err(kf_coord_record *out, bool in_key, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void set_err(kf_coord_record *out, bool in_key, size_t pos, const char *fmt, ...)
{
    if (out->err[0])
        return;
    out->err_in_key = in_key;
    out->err_pos = (uint32_t)pos;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->err, sizeof out->err, fmt, ap);
    va_end(ap);
}

static int decode_key(const cs_record *rec, const uint8_t *key, size_t n, kf_dtree *t, kf_coord_record *out)
{
    cs_dctx d;
    cs_dctx_init(&d, t, key, n, 2);
    uint32_t root = cs_decode_message(&d, rec->key, 0);
    out->key_root = root;
    if (d.err) {
        set_err(out, true, d.err_pos, "key: %s", d.msg);
        return d.err;
    }
    size_t left = kf_cur_left(&d.c);
    if (left) {
        set_err(out, true, d.c.pos, "key: %zu trailing bytes", left);
        return KF_ERR_CORRUPT;
    }
    out->key_ok = true;
    return KF_OK;
}

/* Decodes the value with layout m at version ver from pos; *clean when it
 * decoded with no error and no trailing byte. */
static uint32_t try_layout(cs_dctx *d, kf_dtree *t, const uint8_t *v, size_t n, size_t pos, const cs_message *m,
                           int16_t ver, bool trailing_ok, bool *clean)
{
    cs_dctx_init(d, t, v, n, pos);
    uint32_t root = cs_decode_message(d, m, ver);
    *clean = !d->err && (trailing_ok || kf_cur_left(&d->c) == 0);
    return root;
}

void cs_first_err(char *err, size_t cap, uint32_t *err_pos, size_t pos, const char *fmt, ...)
{
    if (err[0])
        return;
    *err_pos = (uint32_t)pos;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
}

void cs_decode_body(const cs_record *rec, int16_t ver, const uint8_t *v, size_t n, size_t pos, int flags,
                    kf_dtree *t, cs_body *out)
{
    bool trailing_ok = flags & CS_BODY_TRAILING_OK;
    out->ok = out->partial = false;
    out->rc = KF_OK;
    out->layout = NULL;
    out->err_pos = 0;
    out->err[0] = 0;
    out->root = KF_DNODE_NONE;
    const cs_message *m = rec->value;
    cs_dctx d;
    bool clean;

    if (cs_in(ver, m->v_min, m->v_max)) {
        const cs_message *used = m;
        uint32_t root = try_layout(&d, t, v, n, pos, m, ver, trailing_ok, &clean);
        if (!clean && d.err != KF_ERR_TOO_BIG && d.err != KF_ERR_NOMEM) {
            uint32_t mark2 = t->n;
            for (uint8_t i = 0; i < rec->n_alts; i++) {
                const cs_message *alt = rec->alts[i];
                if (!cs_in(ver, alt->v_min, alt->v_max))
                    continue;
                cs_dctx d2;
                bool clean2;
                uint32_t r2 = try_layout(&d2, t, v, n, pos, alt, ver, trailing_ok, &clean2);
                if (clean2) {
                    root = r2; /* the primary's nodes stay unused in the arena */
                    clean = true;
                    used = alt;
                    break;
                }
                t->n = mark2;
            }
        }
        out->root = root;
        out->layout = used;
        if (clean) {
            out->ok = true;
        } else {
            out->partial = true;
            if (d.err) {
                out->rc = d.err;
                CS_FIRST_ERR(out, d.err_pos, "%s v%d: %s", m->name, ver, d.msg);
            } else {
                out->rc = KF_ERR_CORRUPT;
                CS_FIRST_ERR(out, d.c.pos, "%s v%d: %zu trailing bytes", m->name, ver, kf_cur_left(&d.c));
            }
        }
        return;
    }
    /* Unknown version: read it as the closest layout known, best effort. */
    out->rc = KF_ERR_UNSUPPORTED;
    out->partial = true;
    if (ver < 0 || !(flags & CS_BODY_BEST_EFFORT)) {
        CS_FIRST_ERR(out, pos, "%s: unknown version %d", m->name, ver);
        return;
    }
    const cs_message *bm =
        rec->fallback && cs_in(ver, rec->fallback->v_min, rec->fallback->v_max) ? rec->fallback : m;
    int16_t lv = ver > bm->v_max ? bm->v_max : ver < bm->v_min ? bm->v_min : ver;
    uint32_t root = try_layout(&d, t, v, n, pos, bm, lv, trailing_ok, &clean);
    out->root = root;
    out->layout = bm;
    if (d.err)
        CS_FIRST_ERR(out, d.err_pos, "%s: unknown version %d (read as %s v%d: %s)", m->name, ver, bm->name, lv, d.msg);
    else if (!clean)
        CS_FIRST_ERR(out, pos, "%s: unknown version %d (read as %s v%d, %zu bytes left over)", m->name, ver,
                     bm->name, lv, kf_cur_left(&d.c));
    else
        CS_FIRST_ERR(out, pos, "%s: unknown version %d (read as %s v%d)", m->name, ver, bm->name, lv);
    if (d.err == KF_ERR_TOO_BIG || d.err == KF_ERR_NOMEM)
        out->rc = d.err;
}

static int decode_value(const cs_record *rec, const uint8_t *v, size_t n, kf_dtree *t, kf_coord_record *out)
{
    if (n < 2) {
        out->value_partial = true;
        set_err(out, false, 0, "value of %zu bytes has no version", n);
        return KF_ERR_TRUNCATED;
    }
    int16_t ver = (int16_t)kf_be16(v);
    out->value_version = ver;
    cs_body body;
    cs_decode_body(rec, ver, v, n, 2, CS_BODY_BEST_EFFORT, t, &body);
    out->value_root = body.root;
    out->value_ok = body.ok;
    out->value_partial = body.partial;
    if (body.ok && body.layout && body.layout != rec->value)
        out->value_layout = body.layout->name;
    if (body.err[0])
        set_err(out, false, body.err_pos, "%s", body.err);
    if ((rec->flags & CS_REC_CONSUMER_PROTOCOL) && out->value_root != KF_DNODE_NONE)
        cs_expand_consumer_protocol(t, out->value_root);
    return body.rc;
}

static int coord_decode(int topic, const uint8_t *key, int32_t key_len, const uint8_t *value, int32_t value_len,
                        kf_dtree *t, kf_coord_record *out)
{
    memset(out, 0, sizeof *out);
    out->key_type = -1;
    out->key_root = KF_DNODE_NONE;
    out->value_root = KF_DNODE_NONE;
    out->value_version = -1;
    out->tombstone = value == NULL || value_len < 0;
    if (!t) {
        set_err(out, false, 0, "no node arena");
        return KF_ERR_CORRUPT;
    }
    if (topic != KF_COORD_OFFSETS && topic != KF_COORD_TXN && topic != KF_COORD_SHARE) {
        set_err(out, true, 0, "unknown coordinator topic %d", topic);
        return KF_ERR_UNSUPPORTED;
    }
    if (!key || key_len < 0) {
        set_err(out, true, 0, "missing key (not a coordinator record)");
        return KF_ERR_CORRUPT;
    }
    if (key_len < 2) {
        set_err(out, true, 0, "key of %" PRId32 " bytes has no record type", key_len);
        return KF_ERR_TRUNCATED;
    }
    int16_t type = (int16_t)kf_be16(key);
    out->key_type = type;
    const cs_record *rec = kf_cs_lookup(topic, type);
    if (!rec) {
        if (!out->tombstone && value_len >= 2)
            out->value_version = (int16_t)kf_be16(value);
        set_err(out, true, 0, "unknown record type %d", type);
        return KF_ERR_UNSUPPORTED;
    }
    out->known_type = true;
    out->record_type = rec->record_type;
    int rc = decode_key(rec, key, (size_t)key_len, t, out);
    if (!out->tombstone) {
        int vrc = decode_value(rec, value, (size_t)value_len, t, out);
        if (rc == KF_OK)
            rc = vrc;
    }
    return rc;
}

int kf_coord_decode(int topic, const uint8_t *key, int32_t key_len, const uint8_t *value, int32_t value_len,
                    kf_dtree *t, kf_coord_record *out)
{
    if (!out)
        return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "no record to decode into");
    int rc = coord_decode(topic, key, key_len, value, value_len, t, out);
    return rc == KF_OK ? rc : kf_error_set(rc, 0, NULL, "%s", out->err[0] ? out->err : kf_err_str(rc));
}

const char *kf_coord_problem_code(int rc, const kf_coord_record *cr, kf_severity *sev)
{
    if (rc == KF_ERR_UNSUPPORTED && !cr->known_type) { /* the key's type was read: not in the table */
        *sev = KF_SEV_WARNING;
        return KF_P_UNKNOWN_RECORD_TYPE;
    }
    if (rc == KF_ERR_CORRUPT || rc == KF_ERR_TRUNCATED) {
        *sev = KF_SEV_ERROR;
        return KF_P_BAD_RECORD;
    }
    *sev = KF_SEV_WARNING;
    return KF_P_UNDECODED_RECORD;
}
