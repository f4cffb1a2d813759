/* coord_internal.h: the shape of the schema tables of Kafka's internal
 * topics that the generic decoder (src/records/coord_walk.c) walks: the
 * coordinator records (coord_schema.c), __share_group_state
 * (share_schema.c), the KRaft metadata and control records
 * (kraft_schema.c) and __remote_log_metadata (remote_schema.c).
 * Private to libkfsck; the unit tests include it to check the tables.
 *
 * A message (a record's key or value at some version) is a struct; a struct
 * is a list of fields; each field says its type, in which versions it exists,
 * in which versions it may be null, and, for a tagged field, its tag and the
 * versions in which it is tagged (in those versions it is not part of the
 * positional layout but sits in the struct's tagged-field section). Version
 * ranges are inclusive; CS_VMAX stands for "and every later version". */
#ifndef KFSCK_COORD_INTERNAL_H
#define KFSCK_COORD_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kfsck/sys/coord.h"

#define CS_VMAX INT16_MAX
#define CS_MAX_FIELDS 32 /* most fields one struct of the table has (checked by the tests) */

typedef enum cs_kind {
    CS_INT8 = 1,
    CS_INT16,
    CS_UINT16,
    CS_INT32,
    CS_INT64,
    CS_FLOAT64,
    CS_BOOL,
    CS_STRING,
    CS_BYTES,
    CS_UUID,
    CS_STRUCT, /* a nested struct (sub) */
    CS_ARRAY,  /* an array of elem (a primitive kind, or CS_STRUCT with sub) */
} cs_kind;

struct cs_struct;

typedef struct cs_field {
    const char *name;             /* snake_case */
    uint8_t kind;                 /* cs_kind */
    uint8_t elem;                 /* CS_ARRAY: kind of the elements */
    int16_t v_min, v_max;         /* versions the field exists in */
    int16_t null_min, null_max;   /* versions it may be null in (empty when min > max) */
    int16_t tag;                  /* tag number, or -1 for an untagged field */
    int16_t tag_min, tag_max;     /* versions in which it is tagged */
    int64_t def;                  /* default of an absent integer field (documentation) */
    const struct cs_struct *sub;  /* CS_STRUCT, or CS_ARRAY of CS_STRUCT */
    uint8_t flags;                /* CS_F_* */
} cs_field;

enum {
    CS_F_SECRET = 1, /* the decoded node is marked KF_DNODE_SECRET (redacted unless asked for) */
};

typedef struct cs_struct {
    const char *name;             /* Kafka's struct name, for messages */
    const cs_field *fields;
    uint16_t n_fields;
} cs_struct;

typedef struct cs_message {
    const char *name;             /* Kafka's schema name, e.g. "OffsetCommitValue" */
    const cs_struct *root;
    int16_t v_min, v_max;         /* valid versions */
    int16_t flex_min;             /* first flexible version, -1 if none */
} cs_message;

enum {
    CS_REC_CONSUMER_PROTOCOL = 1, /* classic group metadata: decode members' consumer protocol bytes */
};

/* One record type of a topic. Coordinator topics: key type (the int16 that
 * starts the key) with key and value schemas. KRaft-envelope topics
 * (metadata, remote log metadata): the apiKey, key NULL, value the body
 * schema. KRaft control records: the control type, key NULL. */
typedef struct cs_record {
    int16_t type;                 /* key type, apiKey or control type */
    const char *record_type;      /* snake_case name (docs/formats.md §1.2) */
    const cs_message *key;
    const cs_message *value;
    /* Best-effort reading of a value version `value` does not know, when
     * another schema describes it better than value's highest version (type
     * 0: any OffsetCommitValue version). NULL: use value's highest version. */
    const cs_message *fallback;
    /* Other layouts of the same value version seen in Kafka's history
     * (development-stage schemas that changed without a version bump), tried
     * in order when `value` does not decode cleanly. */
    const cs_message *const *alts;
    uint8_t n_alts;
    uint8_t flags;                /* CS_REC_* */
} cs_record;

/* The record types of one coordinator topic (KF_COORD_OFFSETS / KF_COORD_TXN
 * / KF_COORD_SHARE). */
const cs_record *kf_cs_records(int topic, uint32_t *n);
/* The entry for one key type, or NULL. */
const cs_record *kf_cs_lookup(int topic, int16_t type);

/* __share_group_state (share_schema.c). */
const cs_record *kf_cs_share_records(uint32_t *n);

/* KRaft metadata records by apiKey (kraft_schema.c), KRaft control records
 * by control type, and __remote_log_metadata records by apiKey
 * (remote_schema.c). */
const cs_record *kf_cs_metadata_records(uint32_t *n);
const cs_record *kf_cs_control_records(uint32_t *n);
const cs_record *kf_cs_remote_records(uint32_t *n);
/* The entry for a type in a table, or NULL. */
const cs_record *kf_cs_find(const cs_record *recs, uint32_t n, int16_t type);

/* The first failure's words (err, cap bytes) and where it was (*err_pos):
 * both stay as they are once err holds one. */
__attribute__((format(printf, 5, 0))) static inline void cs_first_err(char *err, size_t cap, uint32_t *err_pos,
                                                                     size_t pos, const char *fmt, va_list ap)
{
    if (err[0])
        return;
    *err_pos = (uint32_t)pos;
    vsnprintf(err, cap, fmt, ap);
}

/* What decoding one value body found (cs_decode_body). */
typedef struct cs_body {
    uint32_t root;                /* struct node, KF_DNODE_NONE if none */
    bool ok;                      /* decoded with a known version, every byte used */
    bool partial;                 /* decoded in part, or with another version's layout */
    int rc;                       /* KF_OK or a kf_err */
    const cs_message *layout;     /* the schema that decoded it (rec->value or an alternative) */
    uint32_t err_pos;
    char err[160];
} cs_body;

enum {
    CS_BODY_BEST_EFFORT = 1, /* a version rec->value lacks is read with the nearest layout known */
    CS_BODY_TRAILING_OK = 2, /* bytes after the body are ignored (KRaft control records, as Kafka reads them) */
};

/* Decode the value body of rec at version ver from v[pos..n): rec->value
 * when it has ver, then rec->alts in order when that does not decode
 * cleanly; a version rec->value lacks is KF_ERR_UNSUPPORTED and read best
 * effort (with rec->fallback, else the nearest known version) only with
 * CS_BODY_BEST_EFFORT. Trailing bytes are an error (KF_ERR_CORRUPT) unless
 * CS_BODY_TRAILING_OK. */
void cs_decode_body(const cs_record *rec, int16_t ver, const uint8_t *v, size_t n, size_t pos, int flags,
                    kf_dtree *t, cs_body *out);

extern const cs_message kf_cs_consumer_subscription;
extern const cs_message kf_cs_consumer_assignment;

/* In a decoded GroupMetadataValue of protocol type "consumer", replaces each
 * member's subscription and assignment bytes with their decoded struct, the
 * raw bytes kept after it as subscription_bytes / assignment_bytes
 * (coord_consumer.c). */
void cs_expand_consumer_protocol(kf_dtree *t, uint32_t root);

static inline bool cs_in(int16_t v, int16_t lo, int16_t hi) { return v >= lo && v <= hi; }

#endif
