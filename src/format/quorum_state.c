/* quorum_state.c: the `quorum-state` file of a KRaft metadata partition
 * (include/kfsck/quorum_state.h, docs/formats.md §14.5). Kafka reads the
 * first line (BufferedReader.readLine) with Jackson, requires a JSON object
 * with a data_version in 0..1, then reads the fields of that version of
 * QuorumStateData; every field of the version is mandatory, unknown fields
 * are ignored.
 *
 * The JSON reader is hand-written: the file is one short line and the
 * project has no JSON library (the CLI's json_text.c only validates and
 * prints). It is a strict RFC 8259 recursive-descent reader over the line,
 * depth-limited, that keeps only the top-level members it needs. */
#include "kfsck/quorum_state.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bytes/error.h"
#include "kfsck/checkpoint.h"

#define MAX_DEPTH 32

typedef struct jr {
    const uint8_t *p;
    size_t n, i;
    int depth;
    const char *err;
    size_t err_at;
} jr;

static void set_msg(char *msg, size_t msglen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_msg(char *msg, size_t msglen, const char *fmt, ...)
{
    if (!msg || !msglen || msg[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msglen, fmt, ap);
    va_end(ap);
}

static bool fail(jr *j, const char *what)
{
    if (!j->err) {
        j->err = what;
        j->err_at = j->i;
    }
    return false;
}

static void ws(jr *j)
{
    while (j->i < j->n && (j->p[j->i] == ' ' || j->p[j->i] == '\t' || j->p[j->i] == '\n' || j->p[j->i] == '\r'))
        j->i++;
}

static bool lit(jr *j, const char *s)
{
    size_t k = strlen(s);
    if (j->n - j->i < k || memcmp(j->p + j->i, s, k) != 0)
        return fail(j, "not JSON");
    j->i += k;
    return true;
}

/* A string; s and len span its raw bytes between the quotes (escapes kept). */
static bool str(jr *j, const uint8_t **s, size_t *len)
{
    if (j->i >= j->n || j->p[j->i] != '"')
        return fail(j, "expected a string");
    size_t start = ++j->i;
    while (j->i < j->n) {
        uint8_t c = j->p[j->i];
        if (c == '"') {
            if (s)
                *s = j->p + start;
            if (len)
                *len = j->i - start;
            j->i++;
            return true;
        }
        if (c < 0x20)
            return fail(j, "control character in a string");
        if (c == '\\') {
            if (++j->i >= j->n)
                break;
            c = j->p[j->i];
            if (c == 'u') {
                for (int k = 1; k <= 4; k++) {
                    uint8_t h = j->i + (size_t)k < j->n ? j->p[j->i + (size_t)k] : 0;
                    bool hex = (h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F');
                    if (!hex)
                        return fail(j, "bad \\u escape");
                }
                j->i += 4;
            } else if (!strchr("\"\\/bfnrt", c) || c == 0) {
                return fail(j, "bad escape");
            }
        }
        j->i++;
    }
    return fail(j, "unterminated string");
}

/* A number; *is_int and *v when it is an integer that fits int64. */
static bool num(jr *j, bool *is_int, int64_t *v)
{
    bool neg = false, integral = true, fits = true;
    uint64_t acc = 0;
    if (j->i < j->n && j->p[j->i] == '-') {
        neg = true;
        j->i++;
    }
    if (j->i >= j->n || j->p[j->i] < '0' || j->p[j->i] > '9')
        return fail(j, "bad number");
    if (j->p[j->i] == '0') {
        j->i++;
    } else {
        while (j->i < j->n && j->p[j->i] >= '0' && j->p[j->i] <= '9') {
            uint64_t d = (uint64_t)(j->p[j->i] - '0');
            if (acc > (UINT64_MAX - d) / 10)
                fits = false;
            else
                acc = acc * 10 + d;
            j->i++;
        }
    }
    if (j->i < j->n && j->p[j->i] == '.') {
        integral = false;
        j->i++;
        if (j->i >= j->n || j->p[j->i] < '0' || j->p[j->i] > '9')
            return fail(j, "bad number");
        while (j->i < j->n && j->p[j->i] >= '0' && j->p[j->i] <= '9')
            j->i++;
    }
    if (j->i < j->n && (j->p[j->i] == 'e' || j->p[j->i] == 'E')) {
        integral = false;
        j->i++;
        if (j->i < j->n && (j->p[j->i] == '+' || j->p[j->i] == '-'))
            j->i++;
        if (j->i >= j->n || j->p[j->i] < '0' || j->p[j->i] > '9')
            return fail(j, "bad number");
        while (j->i < j->n && j->p[j->i] >= '0' && j->p[j->i] <= '9')
            j->i++;
    }
    if (fits && acc > (uint64_t)INT64_MAX + (neg ? 1u : 0u))
        fits = false;
    *is_int = integral && fits;
    if (*is_int)
        *v = neg ? (int64_t)(0 - acc) : (int64_t)acc;
    return true;
}

static bool value(jr *j);

static bool array_skip(jr *j)
{
    j->i++;
    ws(j);
    if (j->i < j->n && j->p[j->i] == ']') {
        j->i++;
        return true;
    }
    for (;;) {
        if (!value(j))
            return false;
        ws(j);
        if (j->i < j->n && j->p[j->i] == ',') {
            j->i++;
            ws(j);
            continue;
        }
        if (j->i < j->n && j->p[j->i] == ']') {
            j->i++;
            return true;
        }
        return fail(j, "expected ',' or ']'");
    }
}

static bool object_skip(jr *j)
{
    j->i++;
    ws(j);
    if (j->i < j->n && j->p[j->i] == '}') {
        j->i++;
        return true;
    }
    for (;;) {
        if (!str(j, NULL, NULL))
            return false;
        ws(j);
        if (j->i >= j->n || j->p[j->i] != ':')
            return fail(j, "expected ':'");
        j->i++;
        ws(j);
        if (!value(j))
            return false;
        ws(j);
        if (j->i < j->n && j->p[j->i] == ',') {
            j->i++;
            ws(j);
            continue;
        }
        if (j->i < j->n && j->p[j->i] == '}') {
            j->i++;
            return true;
        }
        return fail(j, "expected ',' or '}'");
    }
}

/* Any value, skipped. */
static bool value(jr *j)
{
    if (j->i >= j->n)
        return fail(j, "the line ends inside the JSON");
    if (++j->depth > MAX_DEPTH)
        return fail(j, "nested too deeply");
    bool ok;
    bool is_int;
    int64_t v;
    switch (j->p[j->i]) {
    case '{': ok = object_skip(j); break;
    case '[': ok = array_skip(j); break;
    case '"': ok = str(j, NULL, NULL); break;
    case 't': ok = lit(j, "true"); break;
    case 'f': ok = lit(j, "false"); break;
    case 'n': ok = lit(j, "null"); break;
    default: ok = num(j, &is_int, &v); break;
    }
    j->depth--;
    return ok;
}

/* ---- the fields ---------------------------------------------------------------- */

enum { F_DATA_VERSION, F_CLUSTER_ID, F_LEADER_ID, F_LEADER_EPOCH, F_VOTED_ID, F_VOTED_DIR, F_APPLIED, F_VOTERS, F_N };
static const char *const FIELD_NAMES[F_N] = {"data_version", "clusterId", "leaderId", "leaderEpoch", "votedId",
                                              "votedDirectoryId", "appliedOffset", "currentVoters"};

typedef struct member {
    bool present;
    size_t at;        /* where its value starts */
} member;

static bool int_at(const uint8_t *line, size_t n, size_t at, int64_t lo, int64_t hi, int64_t *v)
{
    jr j = {line, n, at, 0, NULL, 0};
    bool is_int = false;
    if (j.i >= n || !(line[j.i] == '-' || (line[j.i] >= '0' && line[j.i] <= '9')))
        return false;
    if (!num(&j, &is_int, v) || !is_int)
        return false;
    return *v >= lo && *v <= hi;
}

/* currentVoters: null, or [{"voterId": N}, ...] */
static bool voters_at(const uint8_t *line, size_t n, size_t at, kf_quorum_state *qs, char *msg, size_t msglen)
{
    jr j = {line, n, at, 0, NULL, 0};
    if (line[at] == 'n') {
        qs->has_voters = false;
        return true;
    }
    if (line[at] != '[') {
        set_msg(msg, msglen, "currentVoters is neither an array nor null");
        return false;
    }
    qs->has_voters = true;
    j.i++;
    ws(&j);
    if (j.i < n && line[j.i] == ']')
        return true;
    for (;;) {
        if (j.i >= n || line[j.i] != '{') {
            set_msg(msg, msglen, "currentVoters holds something other than a {\"voterId\": N} object");
            return false;
        }
        /* the members of one voter */
        j.i++;
        ws(&j);
        bool have_id = false;
        int64_t id = 0;
        if (j.i < n && line[j.i] != '}') {
            for (;;) {
                const uint8_t *k;
                size_t kl;
                if (!str(&j, &k, &kl))
                    return false;
                ws(&j);
                if (j.i >= n || line[j.i] != ':')
                    return false;
                j.i++;
                ws(&j);
                size_t vat = j.i;
                if (!value(&j))
                    return false;
                if (kl == 7 && !memcmp(k, "voterId", 7)) {
                    if (!int_at(line, n, vat, INT32_MIN, INT32_MAX, &id)) {
                        set_msg(msg, msglen, "a voterId is not a 32-bit integer");
                        return false;
                    }
                    have_id = true;
                }
                ws(&j);
                if (j.i < n && line[j.i] == ',') {
                    j.i++;
                    ws(&j);
                    continue;
                }
                break;
            }
        }
        if (j.i >= n || line[j.i] != '}')
            return false;
        j.i++;
        if (!have_id) {
            set_msg(msg, msglen, "a voter in currentVoters has no voterId");
            return false;
        }
        if (qs->nvoters < KF_QUORUM_MAX_VOTERS)
            qs->voters[qs->nvoters] = (int32_t)id;
        qs->nvoters++;
        ws(&j);
        if (j.i < n && line[j.i] == ',') {
            j.i++;
            ws(&j);
            continue;
        }
        return j.i < n && line[j.i] == ']';
    }
}

/* The top-level members of the object that starts at j->i (just after its
 * '{'), remembering in f where the wanted ones' values start; false on
 * malformed JSON (j->err says what). */
static bool read_members(jr *j, member f[F_N])
{
    const uint8_t *data = j->p;
    size_t n = j->n;
    j->i++;
    j->depth = 1;
    ws(j);
    if (j->i < n && data[j->i] == '}') {
        j->i++;
        return true;
    }
    for (;;) {
        const uint8_t *k;
        size_t kl;
        if (!str(j, &k, &kl))
            return false;
        ws(j);
        if (j->i >= n || data[j->i] != ':')
            return fail(j, "expected ':'");
        j->i++;
        ws(j);
        size_t vat = j->i;
        if (!value(j))
            return false;
        for (int i = 0; i < F_N; i++)
            if (strlen(FIELD_NAMES[i]) == kl && !memcmp(FIELD_NAMES[i], k, kl))
                f[i] = (member){true, vat}; /* a repeated key: the last wins, as in Jackson */
        ws(j);
        if (j->i < n && data[j->i] == ',') {
            j->i++;
            ws(j);
            continue;
        }
        if (j->i < n && data[j->i] == '}') {
            j->i++;
            return true;
        }
        return fail(j, "expected ',' or '}'");
    }
}

/* data_version: present, an int16, and 0 or 1 (stored in qs even when not). */
static int read_version(const uint8_t *data, size_t n, const member f[F_N], kf_quorum_state *qs, char *msg,
                        size_t msglen)
{
    int64_t v;
    if (!f[F_DATA_VERSION].present) {
        set_msg(msg, msglen, "no data_version field");
        return KF_ERR_CORRUPT;
    }
    if (!int_at(data, n, f[F_DATA_VERSION].at, INT16_MIN, INT16_MAX, &v)) {
        set_msg(msg, msglen, "data_version is not a number");
        return KF_ERR_CORRUPT;
    }
    qs->data_version = (int32_t)v;
    if (v < 0 || v > 1) {
        set_msg(msg, msglen, "data_version %d is not within the supported 0..1", (int)v);
        return KF_ERR_CORRUPT;
    }
    return KF_OK;
}

/* One field k whose value starts at data[at], checked and stored in qs. */
static int read_field(int k, const uint8_t *data, size_t n, size_t at, kf_quorum_state *qs, char *msg,
                      size_t msglen)
{
    int64_t v;
    switch (k) {
    case F_CLUSTER_ID:
        if (data[at] != '"') {
            set_msg(msg, msglen, "clusterId is not a string");
            return KF_ERR_CORRUPT;
        }
        return KF_OK;
    case F_LEADER_ID:
    case F_LEADER_EPOCH:
    case F_VOTED_ID: {
        if (!int_at(data, n, at, INT32_MIN, INT32_MAX, &v)) {
            set_msg(msg, msglen, "%s is not a 32-bit integer", FIELD_NAMES[k]);
            return KF_ERR_CORRUPT;
        }
        int32_t *dst = k == F_LEADER_ID ? &qs->leader_id : k == F_LEADER_EPOCH ? &qs->leader_epoch : &qs->voted_id;
        *dst = (int32_t)v;
        return KF_OK;
    }
    case F_APPLIED:
        if (!int_at(data, n, at, INT64_MIN, INT64_MAX, &v)) {
            set_msg(msg, msglen, "appliedOffset is not a 64-bit integer");
            return KF_ERR_CORRUPT;
        }
        qs->has_applied_offset = true;
        qs->applied_offset = v;
        return KF_OK;
    case F_VOTED_DIR: {
        jr s = {data, n, at, 0, NULL, 0};
        const uint8_t *u;
        size_t ul;
        uint8_t id[16];
        if (data[at] != '"' || !str(&s, &u, &ul) || kf_uuid_from_b64((const char *)u, ul, id) != 0) {
            set_msg(msg, msglen, "votedDirectoryId is not a Kafka uuid");
            return KF_ERR_CORRUPT;
        }
        qs->has_voted_directory_id = true;
        memcpy(qs->voted_directory_id, u, 22);
        qs->voted_directory_id[22] = 0;
        return KF_OK;
    }
    case F_VOTERS:
        if (!voters_at(data, n, at, qs, msg, msglen)) {
            set_msg(msg, msglen, "currentVoters is malformed");
            return KF_ERR_CORRUPT;
        }
        return KF_OK;
    }
    return KF_OK;
}

/* The parse, with the first reason it meets written to msg (set_msg keeps
 * the first: a field read inside another's check does not overwrite it). */
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
    if (size == 0) {
        set_msg(msg, msglen, "empty file (Kafka: \"File ended prematurely\")");
        return KF_ERR_CORRUPT;
    }
    jr j = {data, n, 0, 0, NULL, 0};
    ws(&j);
    if (j.i >= n || data[j.i] != '{') {
        set_msg(msg, msglen, "the first line is not a JSON object");
        return KF_ERR_CORRUPT;
    }
    member f[F_N] = {{0}};
    if (!read_members(&j, f)) {
        set_msg(msg, msglen, "the first line is not valid JSON (%s at byte %zu)", j.err ? j.err : "malformed",
                j.err_at);
        return KF_ERR_CORRUPT;
    }
    int rc = read_version(data, n, f, qs, msg, msglen);
    if (rc != KF_OK)
        return rc;
    /* the fields of that version: all mandatory */
    static const int v0_fields[] = {F_CLUSTER_ID, F_LEADER_ID, F_LEADER_EPOCH, F_VOTED_ID, F_APPLIED, F_VOTERS};
    static const int v1_fields[] = {F_LEADER_ID, F_LEADER_EPOCH, F_VOTED_ID, F_VOTED_DIR};
    const int ver = qs->data_version;
    const int *need = ver == 0 ? v0_fields : v1_fields;
    size_t nneed = ver == 0 ? sizeof v0_fields / sizeof v0_fields[0] : sizeof v1_fields / sizeof v1_fields[0];
    for (size_t i = 0; i < nneed; i++) {
        int k = need[i];
        if (!f[k].present) {
            set_msg(msg, msglen, "no %s field, which data_version %d requires", FIELD_NAMES[k], ver);
            rc = KF_ERR_CORRUPT;
        } else if (read_field(k, data, n, f[k].at, qs, msg, msglen) != KF_OK) {
            rc = KF_ERR_CORRUPT;
        }
    }
    return rc;
}

int kf_quorum_state_parse(const uint8_t *data, uint64_t size, kf_quorum_state *qs)
{
    char msg[512];
    int rc = parse_state(data, size, qs, msg, sizeof msg);
    return rc == KF_OK ? KF_OK : kf_error_set(rc, 0, NULL, "%s", msg);
}
