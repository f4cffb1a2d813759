/* dump_records.c: one record of a dump made ready to show
 * (kf_dump_record): its control record parsed, its key and value decoded
 * by the file's decoder (Kafka's internal topics; KRaft control records in
 * every log), whether its raw bytes hold a secret, and the problem its
 * decoding found, passed on after the record; and the records of a damaged
 * batch, as far as they decode. */
#include <stdio.h>
#include <string.h>

#include "jobs/dump/dump_internal.h"
#include "kfsck/sys/kraft.h"

/* The problem a decoding found, reported after its record. */
typedef struct decode_problem {
    const char *code;          /* NULL: none */
    kf_severity sev;
    char msg[220];
} decode_problem;

static void found(decode_problem *dp, const char *code, kf_severity sev, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void found(decode_problem *dp, const char *code, kf_severity sev, const char *fmt, ...)
{
    dp->code = code;
    dp->sev = sev;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dp->msg, sizeof dp->msg, fmt, ap);
    va_end(ap);
}

/* The problem a KRaft-era decoder's return code means (metadata, remote log
 * metadata, share-group state): malformed bytes are damage (bad_record), an
 * unknown type or version is not (unknown_record_type, kfsck(1) PROBLEM
 * CODES). Records of __consumer_offsets and __transaction_state follow
 * kf_coord_problem_code, as offsets and groups do. */
static const char *kraft_decode_code(int rc, kf_severity *sev)
{
    bool damage = rc == KF_ERR_CORRUPT || rc == KF_ERR_TRUNCATED || rc == KF_ERR_TOO_BIG;
    *sev = damage ? KF_SEV_ERROR : KF_SEV_WARNING;
    return damage ? KF_P_BAD_RECORD : KF_P_UNKNOWN_RECORD_TYPE;
}

/* kf_kraft_decode of a data record into d->tree, once per record: the
 * secret check and the decoded fields share it. */
static int kraft_decode(dump_run *d, kf_dump_record *dr, bool *ready)
{
    if (!*ready) {
        const kf_record *r = dr->record;
        kf_dtree_reset(&d->tree);
        dr->decode_rc = kf_kraft_decode(d->decoder == KF_DECODE_REMOTE ? KF_KRAFT_REMOTE : KF_KRAFT_METADATA, r->key,
                                        r->key_len, r->value, r->value_len, &d->tree, &dr->kraft);
        *ready = true;
    }
    return dr->decode_rc;
}

/* Would showing this record's raw value show a secret? A KRaft metadata
 * record whose decoded fields hold one. */
static bool raw_secret(dump_run *d, kf_dump_record *dr, bool *ready)
{
    if (!d->secret_bytes || d->o.show_secrets || dr->is_control || dr->batch->control)
        return false;
    int rc = kraft_decode(d, dr, ready);
    if (rc == KF_ERR_UNSUPPORTED || rc == KF_ERR_NOMEM)
        return false;
    for (uint32_t i = 0; i < d->tree.n; i++)
        if (d->tree.nodes[i].flags & KF_DNODE_SECRET)
            return true;
    /* bytes that do not decode: a secret-bearing record cut short still
     * holds its secret; keep them out */
    int16_t k = dr->kraft.api_key;
    return rc != KF_OK && (k == KF_MD_USER_SCRAM_CREDENTIAL || k == KF_MD_DELEGATION_TOKEN ||
                           k == KF_MD_REMOVE_DELEGATION_TOKEN || k == KF_MD_CONFIG);
}

/* A KRaft-envelope record (metadata, remote log metadata) or a KRaft
 * control record, decoded: listed undecoded when its type or version is
 * unknown, as far as it reads when malformed. */
static void decode_kraft(dump_run *d, kf_dump_record *dr, bool control, bool *ready, decode_problem *dp)
{
    const kf_record *r = dr->record;
    int rc;
    if (control) {
        kf_dtree_reset(&d->tree);
        rc = dr->decode_rc = kf_kraft_control_decode(dr->control.type, r->value, r->value_len, &d->tree, &dr->kraft);
        dr->decoded = KF_DUMP_KRAFT_CONTROL;
    } else {
        rc = kraft_decode(d, dr, ready);
        dr->decoded = KF_DUMP_KRAFT;
    }
    const kf_kraft_record *kr = &dr->kraft;
    kf_severity sev;
    const char *code = kraft_decode_code(rc, &sev);
    if (rc == KF_ERR_UNSUPPORTED)
        found(dp, code, sev, "offset %lld: %s; listed undecoded", (long long)r->offset, kr->err);
    else if (rc != KF_OK)
        found(dp, code, sev, "offset %lld: %s", (long long)r->offset, kr->err[0] ? kr->err : "not decoded");
    else if (kr->key_present && !control)
        found(dp, KF_P_BAD_RECORD, KF_SEV_WARNING, "offset %lld: a %s record with a key (Kafka never writes one)",
              (long long)r->offset, kr->record_type);
}

/* A record of __consumer_offsets, __transaction_state or __share_group_state. */
static void decode_coord(dump_run *d, kf_dump_record *dr, decode_problem *dp)
{
    const kf_record *r = dr->record;
    kf_coord_record *cr = &dr->coord;
    kf_dtree_reset(&d->tree);
    int topic = d->decoder == KF_DECODE_TXN     ? KF_COORD_TXN
                : d->decoder == KF_DECODE_SHARE ? KF_COORD_SHARE
                                                : KF_COORD_OFFSETS;
    int rc = dr->decode_rc = kf_coord_decode(topic, r->key, r->key_len, r->value, r->value_len, &d->tree, cr);
    dr->decoded = KF_DUMP_COORD;
    if (rc == KF_OK && !cr->err[0])
        return;
    kf_severity sev;
    const char *code =
        d->decoder == KF_DECODE_SHARE ? kraft_decode_code(rc, &sev) : kf_coord_problem_code(rc, cr, &sev);
    found(dp, code, sev, "offset %lld: %s%s%s", (long long)r->offset, cr->known_type ? "" : "unknown record type; ",
          cr->err[0] ? cr->err : "not decoded", cr->known_type ? "" : ", skipped");
}

/* The record r of batch b made ready, to record_fn, then its decoding's
 * problem (none for a damaged batch's record: its damage was reported). */
static int dump_record(dump_run *d, const char *file, const kf_batch *b, const kf_record *r, bool damaged)
{
    kf_dump_record dr;
    memset(&dr, 0, sizeof dr);
    dr.file = file;
    dr.batch = b;
    dr.record = r;
    dr.damaged = damaged;
    dr.decoder = d->decoder;
    dr.tree = &d->tree;
    dr.coord.key_root = dr.coord.value_root = dr.kraft.root = KF_DNODE_NONE;
    dr.is_control = b->control && kf_control_parse(r, &dr.control) == KF_OK;
    bool ready = false; /* d->tree holds this record's KRaft decoding */
    decode_problem dp = {.code = NULL};
    /* a damaged byte may hide what marks a secret (a config's name, the
     * record's type): without show_secrets, a damaged data record of a file
     * that may hold secrets is neither decoded nor shown raw */
    bool guarded = damaged && d->secret_bytes && !d->o.show_secrets && !b->control;
    if (guarded)
        dr.redact = d->o.payload;
    else if (d->o.payload)
        dr.redact = raw_secret(d, &dr, &ready);
    bool data = !b->control && !guarded; /* a data record to decode */
    bool kraft = d->decoder == KF_DECODE_METADATA || d->decoder == KF_DECODE_REMOTE;
    bool coord = d->decoder == KF_DECODE_OFFSETS || d->decoder == KF_DECODE_TXN || d->decoder == KF_DECODE_SHARE;
    if (data && kraft)
        decode_kraft(d, &dr, false, &ready, &dp);
    else if (data && coord)
        decode_coord(d, &dr, &dp);
    /* KRaft control records, in every log */
    if (d->decoder != KF_DECODE_NONE && dr.is_control && dr.control.type >= KF_CONTROL_LEADER_CHANGE)
        decode_kraft(d, &dr, true, &ready, &dp);
    int rc = d->o.record_fn ? d->o.record_fn(d->o.ctx, &dr) : 0;
    if (dp.code && !damaged)
        kf_report(dump_problem, d, dp.code, dp.sev, b->position, true, r->offset, "%s", dp.msg);
    return rc;
}

int dump_on_record(void *ctx, const kf_batch *b, const kf_record *r)
{
    dump_run *d = ctx;
    return dump_record(d, d->file, b, r, false);
}

typedef struct damaged_walk {
    dump_run *d;
    const char *file;
} damaged_walk;

static int damaged_record(void *ctx, const kf_batch *b, const kf_record *r)
{
    damaged_walk *w = ctx;
    if (w->d->o.range && (r->offset < w->d->o.first || r->offset > w->d->o.last))
        return 0;
    return dump_record(w->d, w->file, b, r, true);
}

int dump_damaged_records(dump_run *d, const kf_damaged *dm)
{
    kf_source *src;
    int rc = kf_source_open(&src, dm->file, d->o.max_bytes);
    if (rc != KF_OK) /* the file read a moment ago: say nothing more than its damage */
        return rc == KF_ERR_NOMEM ? rc : KF_OK;
    damaged_walk w = {d, dm->file};
    rc = kf_damaged_records(src, dm, d->o.max_batch_bytes, damaged_record, &w, NULL);
    kf_source_close(src);
    return rc == KF_ERR_NOMEM ? rc : KF_OK;
}
