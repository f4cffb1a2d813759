/* schema_ids.h: the Confluent Schema Registry framing of a record's key or
 * value (the bytes a Confluent serializer writes before the data), read
 * without the registry: magic byte 0 and a 4-byte big-endian schema id, or
 * magic byte 1 and a 16-byte schema GUID. Bytes framed neither way are what
 * a consumer's deserializer refuses with "Unknown magic byte!". Also a
 * bounded tally of the ids seen (verify --schema-ids, per segment). */
#ifndef KFSCK_SCHEMA_IDS_H
#define KFSCK_SCHEMA_IDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kf_schema_framing {
    KF_SCHEMA_NULL = 0,   /* the key or value is null (len < 0): nothing to frame */
    KF_SCHEMA_UNFRAMED,   /* not framed: another first byte, or too short */
    KF_SCHEMA_ID,         /* magic 0 + 4-byte big-endian id (5 bytes at least) */
    KF_SCHEMA_GUID        /* magic 1 + 16-byte GUID (17 bytes at least) */
} kf_schema_framing;

typedef struct kf_schema_frame {
    kf_schema_framing kind;
    int32_t id;           /* KF_SCHEMA_ID: signed, as Java reads it */
    uint8_t guid[16];     /* KF_SCHEMA_GUID: the bytes as stored */
} kf_schema_frame;

/* The framing of the len bytes at p (len < 0: null). Pure: reads at most
 * the first 17 bytes. */
kf_schema_framing kf_schema_frame_read(const uint8_t *p, int32_t len, kf_schema_frame *f);
/* A GUID as a lowercase 8-4-4-4-12 UUID string (36 characters and a NUL). */
void kf_schema_guid_str(const uint8_t guid[16], char out[37]);

/* The distinct ids and GUIDs seen, with a count each: at most
 * KF_SCHEMA_TALLY_MAX distinct ones (the rest are only counted in
 * `omitted`), in order: ids ascending, then GUIDs by their bytes. */
#define KF_SCHEMA_TALLY_MAX 4096
typedef struct kf_schema_tally kf_schema_tally;
/* KF_OK with *out set, or KF_ERR_NOMEM with *out NULL. */
int kf_schema_tally_new(kf_schema_tally **out);
void kf_schema_tally_free(kf_schema_tally *t);
void kf_schema_tally_reset(kf_schema_tally *t);
/* Count a framed key or value (other kinds are not counted): KF_OK (the
 * tally holds all its memory from kf_schema_tally_new on). */
int kf_schema_tally_add(kf_schema_tally *t, const kf_schema_frame *f);
size_t kf_schema_tally_count(const kf_schema_tally *t);
/* Entry i (< count): the frame (kind ID or GUID) and how often it was seen. */
void kf_schema_tally_get(const kf_schema_tally *t, size_t i, kf_schema_frame *f, uint64_t *count);
/* Framed keys/values not counted because the tally was full. */
uint64_t kf_schema_tally_omitted(const kf_schema_tally *t);

#ifdef __cplusplus
}
#endif

#endif
