/* kraft_decode.c: the KRaft metadata envelope (uvarint frame version,
 * apiKey, version, then the flexible body; docs/formats.md §14.1) for
 * __cluster_metadata and __remote_log_metadata records, the KRaft control
 * records (§14.3), and which config values are secrets. The bodies are read by
 * the generic schema decoder (cs_decode_body, coord_decode.c) over the
 * tables of kraft_schema.c and remote_schema.c. */
#include "kfsck/sys/kraft.h"

#include <string.h>
#include <strings.h>

#include "bytes/cursor.h"
#include "bytes/error.h"
#include "records/coord_internal.h"

#define FRAME_VERSION 1
#define SHORT_MAX 32767 /* Kafka: "Value for <entity> was too large" */

static void rec_init(kf_kraft_record *out)
{
    out->control = out->known = out->ok = out->key_present = false;
    out->record_type = out->schema_name = out->layout = NULL;
    out->err_pos = 0;
    out->err[0] = 0; /* written before it is read: not cleared (one record per call) */
    out->frame_version = -1;
    out->api_key = -1;
    out->version = -1;
    out->root = KF_DNODE_NONE;
}

/* One of the three header numbers: an unsigned varint of at most 5 bytes,
 * at most 32767. */
static int header_number_long(kf_cursor *c, const char *what, int16_t *v, kf_kraft_record *out)
{
    size_t at = c->pos;
    uint32_t x = kf_cur_uvarint(c);
    if (c->err) {
        CS_FIRST_ERR(out, at, "%s: %s", what,
                     c->err == KF_ERR_TRUNCATED ? "the value ends inside it" : "malformed varint");
        return c->err;
    }
    if (x > SHORT_MAX) {
        CS_FIRST_ERR(out, at, "%s %u is too large", what, x);
        return KF_ERR_CORRUPT;
    }
    *v = (int16_t)x;
    return KF_OK;
}

/* header_number_long, a one-byte number (the usual case) read at once. */
static inline int header_number(kf_cursor *c, const char *what, int16_t *v, kf_kraft_record *out)
{
    if (!c->err && c->pos < c->len && c->buf[c->pos] < 0x80) {
        *v = c->buf[c->pos++];
        return KF_OK;
    }
    return header_number_long(c, what, v, out);
}

bool kf_config_is_secret(const char *name, size_t len)
{
    static const char end[] = "password";
    static const char *const within[] = {"jaas.config", "secret"};
    if (!name)
        return false;
    if (len >= sizeof end - 1 && strncasecmp(name + len - (sizeof end - 1), end, sizeof end - 1) == 0)
        return true;
    for (size_t w = 0; w < sizeof within / sizeof within[0]; w++) {
        size_t k = strlen(within[w]);
        /* the words start with a lower-case letter: a byte that is not that
         * letter in either case cannot start a match (0x20 is the case bit) */
        char first = within[w][0];
        for (size_t i = 0; i + k <= len; i++)
            if ((name[i] | 0x20) == first && strncasecmp(name + i, within[w], k) == 0)
                return true;
    }
    return false;
}

/* ConfigRecord: the value is a secret when the config's name says so. */
static void mark_config_secret(kf_dtree *t, uint32_t root)
{
    const kf_dnode *st = &t->nodes[root];
    const kf_dnode *name = kf_dnode_field(t, st, "name");
    const kf_dnode *value = kf_dnode_field(t, st, "value");
    if (name && value && name->kind == KF_V_STRING && kf_config_is_secret((const char *)name->p, name->len))
        t->nodes[value - t->nodes].flags |= KF_DNODE_SECRET;
}

static void take_body(const cs_record *rec, const cs_body *b, kf_kraft_record *out)
{
    out->root = b->root;
    out->ok = b->ok;
    if (b->ok && b->layout && b->layout != rec->value)
        out->layout = b->layout->name;
    if (b->err[0])
        CS_FIRST_ERR(out, b->err_pos, "%s", b->err);
}

static int kraft_decode(int topic, const uint8_t *key, int32_t key_len, const uint8_t *value, int32_t value_len,
                        kf_dtree *t, kf_kraft_record *out)
{
    rec_init(out);
    out->key_present = key != NULL && key_len >= 0;
    if (!t) {
        CS_FIRST_ERR(out, 0, "no node arena");
        return KF_ERR_CORRUPT;
    }
    uint32_t nrec = 0;
    const cs_record *recs;
    if (topic == KF_KRAFT_METADATA)
        recs = kf_cs_metadata_records(&nrec);
    else if (topic == KF_KRAFT_REMOTE)
        recs = kf_cs_remote_records(&nrec);
    else {
        CS_FIRST_ERR(out, 0, "unknown KRaft-envelope topic %d", topic);
        return KF_ERR_UNSUPPORTED;
    }
    if (!value || value_len < 0) {
        CS_FIRST_ERR(out, 0, "null value (a metadata record always has one)");
        return KF_ERR_CORRUPT;
    }
    kf_cursor c;
    kf_cur_init(&c, value, (size_t)value_len);
    int rc = header_number(&c, "frame version", &out->frame_version, out);
    if (rc != KF_OK)
        return rc;
    if (out->frame_version != FRAME_VERSION) {
        CS_FIRST_ERR(out, 0,
                     out->frame_version == 0
                         ? "frame version 0 (the KRaft preview of Kafka 2.8, which newer Kafka cannot read)"
                         : "unknown frame version %d",
                     out->frame_version);
        return KF_ERR_UNSUPPORTED;
    }
    if ((rc = header_number(&c, "type", &out->api_key, out)) != KF_OK ||
        (rc = header_number(&c, "version", &out->version, out)) != KF_OK)
        return rc;
    const cs_record *rec = kf_cs_find(recs, nrec, out->api_key);
    if (!rec) {
        CS_FIRST_ERR(out, 0, "unknown record type %d", out->api_key);
        return KF_ERR_UNSUPPORTED;
    }
    out->record_type = rec->record_type;
    out->schema_name = rec->value->name;
    if (!cs_in(out->version, rec->value->v_min, rec->value->v_max)) {
        CS_FIRST_ERR(out, 0, "%s: unknown version %d (this build knows %d to %d)", rec->value->name, out->version,
                     rec->value->v_min, rec->value->v_max);
        return KF_ERR_UNSUPPORTED;
    }
    out->known = true;
    cs_body b;
    cs_decode_body(rec, out->version, value, (size_t)value_len, c.pos, 0, t, &b);
    take_body(rec, &b, out);
    if (topic == KF_KRAFT_METADATA && out->api_key == KF_MD_CONFIG && out->root != KF_DNODE_NONE)
        mark_config_secret(t, out->root);
    return b.rc;
}

static int control_decode(int16_t type, const uint8_t *value, int32_t value_len, kf_dtree *t, kf_kraft_record *out)
{
    rec_init(out);
    out->control = true;
    out->api_key = type;
    if (!t) {
        CS_FIRST_ERR(out, 0, "no node arena");
        return KF_ERR_CORRUPT;
    }
    uint32_t nrec = 0;
    const cs_record *crecs = kf_cs_control_records(&nrec);
    const cs_record *rec = kf_cs_find(crecs, nrec, type);
    if (!rec) {
        CS_FIRST_ERR(out, 0, "control record type %d is not a KRaft control record", type);
        return KF_ERR_UNSUPPORTED;
    }
    out->record_type = rec->record_type;
    out->schema_name = rec->value->name;
    out->version = 0; /* Kafka reads every control record at version 0 */
    out->known = true;
    if (!value || value_len < 0) {
        CS_FIRST_ERR(out, 0, "%s: null value", rec->value->name);
        return KF_ERR_CORRUPT;
    }
    cs_body b;
    cs_decode_body(rec, 0, value, (size_t)value_len, 0, CS_BODY_TRAILING_OK, t, &b);
    take_body(rec, &b, out);
    return b.rc;
}

/* rc, with out's words as the last error when it is an error. */
static int decoded(int rc, const kf_kraft_record *out)
{
    return rc == KF_OK ? rc : kf_error_set(rc, 0, NULL, "%s", out->err[0] ? out->err : kf_err_str(rc));
}

int kf_kraft_decode(int topic, const uint8_t *key, int32_t key_len, const uint8_t *value, int32_t value_len,
                    kf_dtree *t, kf_kraft_record *out)
{
    if (!out)
        return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "no record to decode into");
    return decoded(kraft_decode(topic, key, key_len, value, value_len, t, out), out);
}

int kf_kraft_control_decode(int16_t type, const uint8_t *value, int32_t value_len, kf_dtree *t,
                            kf_kraft_record *out)
{
    if (!out)
        return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "no record to decode into");
    return decoded(control_decode(type, value, value_len, t, out), out);
}
