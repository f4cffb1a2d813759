/* predict_config.c: the broker settings predict reads from a
 * server.properties (kf_predict_config_read, include/kfsck/predict.h),
 * read with the Java properties reader (server_properties.h) and each
 * value as Kafka's ConfigDef takes it: surrounding blanks trimmed, numbers by
 * Integer/Long.parseLong, lists split at commas (docs/formats.md §20.1). */
#include "predict_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
#include "bytes/grow.h"
#include "kfsck/sys/file.h"
#include "kfsck/sys/server_properties.h"

/* The cap on a --config file read whole: eight of the longest logical
 * lines it reads (KF_PROPERTIES_LINE_MAX). */
#define CONFIG_FILE_MAX ((uint64_t)KF_PROPERTIES_LINE_MAX * 8)

/* The numeric settings predict reads, as Kafka's ConfigDef defines them: an
 * INT or a LONG, and the Range.atLeast of some (below it the broker does not
 * start). */
enum { S_RECOVERY_THREADS, S_INDEX_INTERVAL, S_RETENTION_MS, S_RETENTION_MINUTES, S_RETENTION_HOURS,
       S_RETENTION_BYTES, S_N };
#define NO_MIN INT64_MIN
static const struct {
    const char *key;
    bool is_int; /* INT, else LONG */
    int64_t min; /* Range.atLeast, or NO_MIN */
} SETTINGS[S_N] = {
    [S_RECOVERY_THREADS] = {"num.recovery.threads.per.data.dir", true, 1},
    [S_INDEX_INTERVAL] = {"log.index.interval.bytes", true, 0},
    [S_RETENTION_MS] = {"log.retention.ms", false, NO_MIN},
    [S_RETENTION_MINUTES] = {"log.retention.minutes", true, NO_MIN},
    [S_RETENTION_HOURS] = {"log.retention.hours", true, NO_MIN},
    [S_RETENTION_BYTES] = {"log.retention.bytes", false, NO_MIN},
};

typedef struct cfg_read {
    kf_predict_config *c;
    char *log_dir;             /* log.dir, used when log.dirs is not set */
    char *log_dirs;
    bool has[S_N];             /* the numeric settings given, their values: */
    int64_t num[S_N];
    char *msg;
    size_t msglen;
} cfg_read;

static void trim(const char **s, size_t *n)
{
    while (*n && (**s == ' ' || **s == '\t' || **s == '\n' || **s == '\r' || **s == '\f')) {
        (*s)++;
        (*n)--;
    }
    while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t' || (*s)[*n - 1] == '\n' || (*s)[*n - 1] == '\r' ||
                  (*s)[*n - 1] == '\f'))
        (*n)--;
}

static int number(cfg_read *r, const char *key, const char *v, size_t n, bool is_int, int64_t *out)
{
    trim(&v, &n);
    if (kf_java_long(v, n, out) && (!is_int || (*out >= INT32_MIN && *out <= INT32_MAX)))
        return KF_OK;
    snprintf(r->msg, r->msglen, "Invalid value %.*s for configuration %s: Not a number of type %s", (int)n, v, key,
             is_int ? "INT" : "LONG");
    return KF_ERR_CORRUPT;
}

/* ConfigDef's Range.atLeast: a value below min is refused, and the broker
 * does not start. */
static int at_least(cfg_read *r, const char *key, int64_t v, int64_t min)
{
    if (v >= min)
        return KF_OK;
    snprintf(r->msg, r->msglen, "Invalid value %lld for configuration %s: Value must be at least %lld",
             (long long)v, key, (long long)min);
    return KF_ERR_CORRUPT;
}

static int replace(char **dst, const char *v, size_t n)
{
    trim(&v, &n);
    char *s = malloc(n + 1);
    if (!s)
        return kf_error_nomem();
    memcpy(s, v, n);
    s[n] = 0;
    free(*dst);
    *dst = s;
    return KF_OK;
}

static int on_property(void *ctx, const char *key, size_t klen, const char *v, size_t vlen)
{
    cfg_read *r = ctx;
    kf_predict_config *c = r->c;
    char k[64];
    if (klen >= sizeof k)
        return KF_OK;
    memcpy(k, key, klen);
    k[klen] = 0;
    if (!strcmp(k, "log.dirs"))
        return replace(&r->log_dirs, v, vlen);
    if (!strcmp(k, "log.dir"))
        return replace(&r->log_dir, v, vlen);
    if (!strcmp(k, "log.cleanup.policy"))
        return replace(&c->cleanup_policy, v, vlen);
    for (int i = 0; i < S_N; i++) {
        if (strcmp(k, SETTINGS[i].key))
            continue;
        int rc = number(r, k, v, vlen, SETTINGS[i].is_int, &r->num[i]);
        if (rc == KF_OK && SETTINGS[i].min != NO_MIN)
            rc = at_least(r, k, r->num[i], SETTINGS[i].min);
        r->has[i] = rc == KF_OK;
        return rc;
    }
    return KF_OK;
}

/* "a, b,,c" -> {"a", "b", "c"} (ConfigDef's LIST: split at commas, trimmed, empties dropped) */
static int split_dirs(kf_predict_config *c, const char *list)
{
    for (const char *s = list; *s;) {
        const char *e = strchr(s, ',');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        const char *item = s;
        trim(&item, &n);
        if (n) {
            char **nd = realloc(c->log_dirs, (c->n_log_dirs + 1) * sizeof *nd);
            if (!nd)
                return kf_error_nomem();
            c->log_dirs = nd;
            if (!(nd[c->n_log_dirs] = malloc(n + 1)))
                return kf_error_nomem();
            memcpy(nd[c->n_log_dirs], item, n);
            nd[c->n_log_dirs++][n] = 0;
        }
        s = e ? e + 1 : s + strlen(s);
    }
    return KF_OK;
}

int kf_predict_config_read(const char *path, kf_predict_config *c)
{
    memset(c, 0, sizeof *c);
    char msg[512] = "";
    size_t msglen = sizeof msg;
    kf_file_contents m = {0};
    /* settings written by hand: small by nature, read whole with a cap
     * of a few of the longest lines it reads (a larger file is refused) */
    int rc = kf_file_read_all(path, CONFIG_FILE_MAX, &m.data, &m.size);
    if (rc == KF_ERR_TOO_BIG)
        return kf_error_set(rc, 0, path, "larger than %d MiB, far more than any server.properties: not read",
                            (int)(CONFIG_FILE_MAX >> 20));
    if (rc != KF_OK)
        return rc;
    cfg_read r = {.c = c, .msg = msg, .msglen = msglen};
    uint64_t line = 0;
    rc = kf_properties_parse(m.data, (size_t)m.size, on_property, &r, &line);
    free(m.data);
    if ((rc == KF_ERR_CORRUPT || rc == KF_ERR_TOO_BIG) && !msg[0])
        snprintf(msg, msglen, "line %llu: %s", (unsigned long long)line,
                 rc == KF_ERR_TOO_BIG ? "longer than kfsck reads (1 MiB)" : "Malformed \\uxxxx encoding.");
    else if (rc == KF_ERR_CORRUPT)
        snprintf(msg + strlen(msg), msglen - strlen(msg), " (line %llu)", (unsigned long long)line);
    if (rc == KF_ERR_CORRUPT || rc == KF_ERR_TOO_BIG)
        kf_error_set(rc, 0, path, "%s", msg);
    c->has_recovery_threads = r.has[S_RECOVERY_THREADS];
    c->recovery_threads = (int32_t)r.num[S_RECOVERY_THREADS];
    c->has_index_interval = r.has[S_INDEX_INTERVAL];
    c->index_interval_bytes = (int32_t)r.num[S_INDEX_INTERVAL];
    c->has_retention_bytes = r.has[S_RETENTION_BYTES];
    c->retention_bytes = r.num[S_RETENTION_BYTES];
    /* log.retention.ms, else .minutes, else .hours (KafkaConfig.logRetentionTimeMillis) */
    c->has_retention_ms = r.has[S_RETENTION_MS] || r.has[S_RETENTION_MINUTES] || r.has[S_RETENTION_HOURS];
    c->retention_ms = r.has[S_RETENTION_MS]        ? r.num[S_RETENTION_MS]
                      : r.has[S_RETENTION_MINUTES] ? r.num[S_RETENTION_MINUTES] * 60000
                                                   : r.num[S_RETENTION_HOURS] * 3600000;
    if (c->retention_ms < -1)
        c->retention_ms = -1;
    const char *dirs = r.log_dirs ? r.log_dirs : r.log_dir;
    if (rc == KF_OK && dirs)
        rc = split_dirs(c, dirs);
    free(r.log_dirs);
    free(r.log_dir);
    return rc == KF_ERR_NOMEM ? kf_error_set(rc, ENOMEM, path, "out of memory") : rc;
}

void kf_predict_config_free(kf_predict_config *c)
{
    if (!c)
        return;
    kf_strings_free(c->log_dirs, c->n_log_dirs);
    free(c->cleanup_policy);
    memset(c, 0, sizeof *c);
}
