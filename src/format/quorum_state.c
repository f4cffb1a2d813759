/* quorum_state.c: the `quorum-state` file of a KRaft metadata partition
 * (include/kfsck/sys/quorum_state.h, docs/formats.md §14.5). Kafka reads the
 * first line (BufferedReader.readLine) with Jackson, requires a JSON object
 * with a data_version in 0..1, then reads the fields of that version of
 * QuorumStateData; every field of the version is mandatory, unknown fields
 * are ignored, and a repeated key is its last value.
 *
 * The line is parsed with Jansson, the project's JSON reader, into a tree:
 * a line longer than KF_QUORUM_LINE_MAX (far longer than any node writes)
 * is refused instead, so the tree stays small whatever the file holds. */
#include "kfsck/sys/quorum_state.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
#include "format/source.h"
#include "kfsck/sys/checkpoint.h"

/* ---- the fields ---------------------------------------------------------------- */

enum { F_DATA_VERSION, F_CLUSTER_ID, F_LEADER_ID, F_LEADER_EPOCH, F_VOTED_ID, F_VOTED_DIR, F_APPLIED, F_VOTERS, F_N };
static const char *const FIELD_NAMES[F_N] = {"data_version", "clusterId", "leaderId", "leaderEpoch", "votedId",
                                              "votedDirectoryId", "appliedOffset", "currentVoters"};

/* The file is refused: the reason written to msg when it holds none yet
 * (the first reason is the one given); returns KF_ERR_CORRUPT. */
static int corrupt(char *msg, size_t msglen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int corrupt(char *msg, size_t msglen, const char *fmt, ...)
{
    if (!msg || !msglen || msg[0])
        return KF_ERR_CORRUPT;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msglen, fmt, ap);
    va_end(ap);
    return KF_ERR_CORRUPT;
}

/* An integer value (no fraction or exponent: Jackson's int and long) in [lo, hi]. */
static bool int_of(const json_t *v, int64_t lo, int64_t hi, int64_t *out)
{
    if (!json_is_integer(v))
        return false;
    json_int_t x = json_integer_value(v);
    if (x < lo || x > hi)
        return false;
    *out = (int64_t)x;
    return true;
}

/* currentVoters: null, or [{"voterId": N}, ...] */
static int read_voters(const json_t *v, kf_quorum_state *qs, char *msg, size_t msglen)
{
    if (json_is_null(v)) {
        qs->has_voters = false;
        return KF_OK;
    }
    if (!json_is_array(v))
        return corrupt(msg, msglen, "currentVoters is neither an array nor null");
    qs->has_voters = true;
    size_t i;
    const json_t *voter;
    json_array_foreach(v, i, voter) {
        if (!json_is_object(voter))
            return corrupt(msg, msglen, "currentVoters holds something other than a {\"voterId\": N} object");
        const json_t *idv = json_object_get(voter, "voterId");
        int64_t id;
        if (!idv)
            return corrupt(msg, msglen, "a voter in currentVoters has no voterId");
        if (!int_of(idv, INT32_MIN, INT32_MAX, &id))
            return corrupt(msg, msglen, "a voterId is not a 32-bit integer");
        if (qs->nvoters < KF_QUORUM_MAX_VOTERS)
            qs->voters[qs->nvoters] = (int32_t)id;
        qs->nvoters++;
    }
    return KF_OK;
}

/* data_version: present, an int16, and 0 or 1 (stored in qs even when not). */
static int read_version(const json_t *o, kf_quorum_state *qs, char *msg, size_t msglen)
{
    int64_t v;
    const json_t *f = json_object_get(o, FIELD_NAMES[F_DATA_VERSION]);
    if (!f)
        return corrupt(msg, msglen, "no data_version field");
    if (!int_of(f, INT16_MIN, INT16_MAX, &v))
        return corrupt(msg, msglen, "data_version is not a number");
    qs->data_version = (int32_t)v;
    if (v < 0 || v > 1)
        return corrupt(msg, msglen, "data_version %d is not within the supported 0..1", (int)v);
    return KF_OK;
}

/* One field k of value v, checked and stored in qs. */
static int read_field(int k, const json_t *v, kf_quorum_state *qs, char *msg, size_t msglen)
{
    int64_t x;
    switch (k) {
    case F_CLUSTER_ID:
        if (!json_is_string(v))
            return corrupt(msg, msglen, "clusterId is not a string");
        return KF_OK;
    case F_LEADER_ID:
    case F_LEADER_EPOCH:
    case F_VOTED_ID: {
        if (!int_of(v, INT32_MIN, INT32_MAX, &x))
            return corrupt(msg, msglen, "%s is not a 32-bit integer", FIELD_NAMES[k]);
        int32_t *dst = k == F_LEADER_ID ? &qs->leader_id : k == F_LEADER_EPOCH ? &qs->leader_epoch : &qs->voted_id;
        *dst = (int32_t)x;
        return KF_OK;
    }
    case F_APPLIED:
        if (!int_of(v, INT64_MIN, INT64_MAX, &x))
            return corrupt(msg, msglen, "appliedOffset is not a 64-bit integer");
        qs->has_applied_offset = true;
        qs->applied_offset = x;
        return KF_OK;
    case F_VOTED_DIR: {
        uint8_t id[16];
        const char *u = json_string_value(v);
        if (!u || kf_uuid_from_b64(u, json_string_length(v), id) != 0)
            return corrupt(msg, msglen, "votedDirectoryId is not a Kafka uuid");
        qs->has_voted_directory_id = true;
        memcpy(qs->voted_directory_id, u, 22);
        qs->voted_directory_id[22] = 0;
        return KF_OK;
    }
    case F_VOTERS:
        return read_voters(v, qs, msg, msglen);
    }
    return KF_OK;
}

/* Jansson's reason a line is no JSON, in a few words. */
static const char *json_reason(const json_error_t *e)
{
    switch (json_error_code(e)) {
    case json_error_premature_end_of_input: return "the line ends inside the JSON";
    case json_error_end_of_input_expected: return "more after the JSON";
    case json_error_invalid_utf8: return "invalid UTF-8";
    case json_error_null_character: return "a NUL character";
    case json_error_numeric_overflow: return "a number too large";
    default: return "malformed";
    }
}

/* The parse, with the first reason it meets written to msg. */
static int parse_state(const uint8_t *data, uint64_t size, kf_quorum_state *qs, char *msg, size_t msglen)
{
    memset(qs, 0, sizeof *qs);
    qs->data_version = -1;
    qs->leader_id = qs->leader_epoch = qs->voted_id = -1;
    msg[0] = 0;
    /* the first line, as BufferedReader.readLine splits it */
    size_t n = 0;
    while (n < size && data[n] != '\n' && data[n] != '\r')
        n++;
    if (size == 0)
        return corrupt(msg, msglen, "empty file (Kafka: \"File ended prematurely\")");
    size_t i = 0;
    while (i < n && (data[i] == ' ' || data[i] == '\t'))
        i++;
    if (i >= n || data[i] != '{')
        return corrupt(msg, msglen, "the first line is not a JSON object");
    if (n > KF_QUORUM_LINE_MAX)
        return corrupt(msg, msglen,
                       "the first line is %zu bytes, longer than any a node writes (kfsck reads %u at most)", n,
                       (unsigned)KF_QUORUM_LINE_MAX);
    json_error_t err;
    json_t *o = json_loadb((const char *)data, n, 0, &err);
    if (!o)
        return corrupt(msg, msglen, "the first line is not valid JSON (%s at byte %d)", json_reason(&err),
                       err.position);
    int rc = read_version(o, qs, msg, msglen);
    if (rc == KF_OK) {
        /* the fields of that version: all mandatory */
        static const int v0_fields[] = {F_CLUSTER_ID, F_LEADER_ID, F_LEADER_EPOCH, F_VOTED_ID, F_APPLIED, F_VOTERS};
        static const int v1_fields[] = {F_LEADER_ID, F_LEADER_EPOCH, F_VOTED_ID, F_VOTED_DIR};
        const int ver = qs->data_version;
        const int *need = ver == 0 ? v0_fields : v1_fields;
        size_t nneed = ver == 0 ? sizeof v0_fields / sizeof v0_fields[0] : sizeof v1_fields / sizeof v1_fields[0];
        for (size_t k = 0; k < nneed; k++) {
            const json_t *v = json_object_get(o, FIELD_NAMES[need[k]]);
            if (!v) {
                rc = corrupt(msg, msglen, "no %s field, which data_version %d requires", FIELD_NAMES[need[k]], ver);
            } else if (read_field(need[k], v, qs, msg, msglen) != KF_OK) {
                rc = KF_ERR_CORRUPT;
            }
        }
    }
    json_decref(o);
    return rc;
}

int kf_quorum_state_parse(const uint8_t *data, uint64_t size, kf_quorum_state *qs)
{
    char msg[512];
    int rc = parse_state(data, size, qs, msg, sizeof msg);
    return rc == KF_OK ? KF_OK : kf_error_set(rc, 0, NULL, "%s", msg);
}

int kf_quorum_state_read(const char *path, kf_quorum_state *qs)
{
    kf_file_contents m;
    /* the first line is all a node reads: a line longer than
     * KF_QUORUM_LINE_MAX shows as one in its first KF_QUORUM_LINE_MAX + 1 bytes */
    int rc = kf_file_read_head(path, (uint64_t)KF_QUORUM_LINE_MAX + 1, &m.data, &m.size);
    if (rc != KF_OK) {
        memset(qs, 0, sizeof *qs);
        qs->data_version = qs->leader_id = qs->leader_epoch = qs->voted_id = -1;
        return rc;
    }
    rc = kf_quorum_state_parse(m.data, m.size, qs);
    free(m.data);
    return rc;
}
