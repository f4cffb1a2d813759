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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

#define CS_MAX_USES 4 /* most structs one struct's fields name */

typedef struct cs_struct {
    const char *name;             /* Kafka's struct name, for messages and the notation */
    /* Its fields in the field notation of cs_notation.c, and the structs
     * that notation names (by their name). */
    const char *spec;
    struct cs_struct *uses[CS_MAX_USES];
    /* Built from spec once, before any table is handed out (schema_tables.c). */
    const cs_field *fields;
    uint16_t n_fields;
} cs_struct;

/* Parses a struct's field notation `spec` into out[0..cap): one field per
 * space-separated word,
 *     name:type[?][@versions][#tag][=default][!]
 * type: int8 int16 uint16 int32 int64 float64 bool string bytes uuid, or
 * the name of one of the `uses` structs; in brackets, an array of it.
 * ?: nullable in every version the field has. @N: in version N only, @N+:
 * in N and later, @N-M: in N to M (no @: every version). #T: a tagged
 * field with tag T, tagged in every version it has. =D: the integer
 * default of an absent field. !: a secret (CS_F_SECRET). Names are copied
 * into names[0..names_cap) (*names_used advanced). Returns the number of
 * fields, or -1 with the first fault and where it is in err. */
int cs_parse_fields(const char *spec, struct cs_struct *const *uses, cs_field *out, size_t cap, char *names,
                    size_t names_cap, size_t *names_used, char *err, size_t err_cap);

/* Why the schema tables could not all be built (a fault in a notation, or
 * the pools too small), or NULL when every struct of every table built. */
const char *kf_cs_build_error(void);

typedef struct cs_message {
    const char *name;             /* Kafka's schema name, e.g. "OffsetCommitValue" */
    cs_struct *root;              /* not const: its fields are built once (schema_tables.c) */
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

/* The record types of one table, as written (schema_tables.c hands them
 * out built). */
typedef struct cs_table {
    const cs_record *recs;
    uint32_t n;
} cs_table;
#define CS_TABLE(recs) { recs, (uint32_t)(sizeof recs / sizeof recs[0]) }
extern const cs_table cs_offsets_table, cs_txn_table, cs_share_table, cs_metadata_table, cs_control_table,
    cs_remote_table;

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

/* The first failure's words (err, cap bytes, from fmt) and where it was
 * (*err_pos): both stay as they are once err holds one. */
void cs_first_err(char *err, size_t cap, uint32_t *err_pos, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* cs_first_err into the err and err_pos of rec, a decoder's outcome
 * (cs_body, kf_kraft_record). */
#define CS_FIRST_ERR(rec, pos, ...) cs_first_err((rec)->err, sizeof (rec)->err, &(rec)->err_pos, (pos), __VA_ARGS__)

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

/* Builds every table's fields from their notation, once (thread-safe); the
 * table accessors call it, as must any other use of a table's struct. */
void cs_tables_ready(void);

extern const cs_message kf_cs_consumer_subscription;
extern const cs_message kf_cs_consumer_assignment;

/* In a decoded GroupMetadataValue of protocol type "consumer", replaces each
 * member's subscription and assignment bytes with their decoded struct, the
 * raw bytes kept after it as subscription_bytes / assignment_bytes
 * (coord_consumer.c). */
void cs_expand_consumer_protocol(kf_dtree *t, uint32_t root);

static inline bool cs_in(int16_t v, int16_t lo, int16_t hi) { return v >= lo && v <= hi; }

#endif
