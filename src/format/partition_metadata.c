/* partition_metadata.c: the parser of partition.metadata
 * (docs/formats.md §7.3; PartitionMetadataFile.java): "version: N" then
 * "topic_id: <uuid>", each line split on ":\s+", as the broker reads it. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <stdlib.h>

#include "bytes/error.h"
#include "format/source.h"
#include "format/checkpoint_text.h"
#include "kfsck/sys/checkpoint.h"

static bool uuid_is_zero(const uint8_t u[16])
{
    for (int i = 0; i < 16; i++)
        if (u[i])
            return false;
    return true;
}

/* Split "key:\s+value" at the first ':' followed by whitespace (Java's
 * line.split(":\\s+", 2)); false when there is no such separator. */
static bool split_colon(const uint8_t *p, size_t n, size_t *klen, size_t *vstart)
{
    for (size_t i = 0; i + 1 < n; i++) {
        if (p[i] == ':' && kf_text_is_ws(p[i + 1])) {
            size_t j = i + 1;
            while (j < n && kf_text_is_ws(p[j]))
                j++;
            *klen = i;
            *vstart = j;
            return true;
        }
    }
    return false;
}

static bool key_is(const uint8_t *p, size_t n, const char *key) { return n == strlen(key) && memcmp(p, key, n) == 0; }

int kf_partition_metadata_parse(const uint8_t *data, uint64_t size, kf_partition_metadata *pm)
{
    memset(pm, 0, sizeof *pm);
    pm->version = -1;
    kf_text_lines L = {.d = data, .n = data ? size : 0, .pos = 0};
    uint64_t ls, ll;
    size_t klen, vs;
    int64_t v;
    char ex[80];

    if (!kf_text_next_line(&L, &ls, &ll))
        return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "empty file: missing the version line");
    const uint8_t *p = data + ls;
    kf_text_excerpt(p, ll, ex, sizeof ex);
    if (!split_colon(p, (size_t)ll, &klen, &vs) || !key_is(p, klen, "version"))
        return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "malformed line \"%s\": expected \"version: N\"", ex);
    if (!kf_text_parse_int(p + vs, (size_t)ll - vs, INT32_MIN, INT32_MAX, &v))
        return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "malformed line \"%s\": the version is not an integer", ex);
    pm->version = (int32_t)v;
    if (v < 0)
        return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "unrecognized version of partition metadata file: %" PRId64, v);
    if (!kf_text_next_line(&L, &ls, &ll))
        return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "missing the topic_id line");
    p = data + ls;
    kf_text_excerpt(p, ll, ex, sizeof ex);
    if (!split_colon(p, (size_t)ll, &klen, &vs) || !key_is(p, klen, "topic_id"))
        return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "malformed line \"%s\": expected \"topic_id: <uuid>\"", ex);
    if (kf_uuid_parse_java(p + vs, (size_t)ll - vs, pm->topic_id) != 0) {
        memset(pm->topic_id, 0, sizeof pm->topic_id);
        return kf_error_set(KF_ERR_CORRUPT, 0, NULL,
                            "malformed line \"%s\": the topic id is not a 22-character base64 Uuid", ex);
    }
    kf_uuid_to_b64(pm->topic_id, pm->topic_id_b64);
    if (uuid_is_zero(pm->topic_id))
        return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "invalid topic id %s (the all-zero Uuid)", pm->topic_id_b64);
    return KF_OK;
}

int kf_partition_metadata_read(const char *path, kf_partition_metadata *pm)
{
    memset(pm, 0, sizeof *pm);
    pm->version = -1;
    kf_file_contents m;
    int rc = kf_file_read_meta(path, "partition.metadata", &m.data, &m.size);
    if (rc != KF_OK)
        return rc;
    rc = kf_partition_metadata_parse(m.data, m.size, pm);
    free(m.data);
    return rc;
}
