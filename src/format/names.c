/* names.c: classify files and directories of a Kafka log dir by name, the way
 * the broker's LogFileUtils/LocalLog do (20-digit offset prefixes, the
 * .deleted/.cleaned/.swap suffixes, <topic>-<partition> dirs), and name a
 * segment's sibling files. */
#include "kfsck/sys/names.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"

static const char *const SUFFIXES[] = {".deleted", ".cleaned", ".swap"};

static bool ends_with(const char *s, size_t n, const char *suf)
{
    size_t k = strlen(suf);
    return n >= k && memcmp(s + n - k, suf, k) == 0;
}

static bool all_digits(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

static int64_t parse_offset(const char *s, size_t n)
{
    if (!all_digits(s, n) || n > 19 + 1)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (v > (uint64_t)INT64_MAX / 10)
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    return v > (uint64_t)INT64_MAX ? -1 : (int64_t)v;
}

kf_name_info kf_classify_name(const char *name)
{
    kf_name_info ni = {KF_FILE_UNKNOWN, -1, ""};
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof SUFFIXES / sizeof SUFFIXES[0]; i++) {
        if (ends_with(name, n, SUFFIXES[i])) {
            ni.suffix = SUFFIXES[i];
            n -= strlen(SUFFIXES[i]);
            break;
        }
    }
    static const struct {
        const char *name;
        kf_file_kind kind;
    } fixed[] = {
        {"recovery-point-offset-checkpoint", KF_FILE_OFFSET_CHECKPOINT},
        {"log-start-offset-checkpoint", KF_FILE_OFFSET_CHECKPOINT},
        {"replication-offset-checkpoint", KF_FILE_OFFSET_CHECKPOINT},
        {"cleaner-offset-checkpoint", KF_FILE_OFFSET_CHECKPOINT},
        {"leader-epoch-checkpoint", KF_FILE_LEADER_EPOCH},
        {"partition.metadata", KF_FILE_PARTITION_METADATA},
        {"meta.properties", KF_FILE_META_PROPERTIES},
        {"quorum-state", KF_FILE_QUORUM_STATE},
        {"bootstrap.checkpoint", KF_FILE_BOOTSTRAP_CHECKPOINT},
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        if (strlen(fixed[i].name) == n && memcmp(name, fixed[i].name, n) == 0) {
            ni.kind = fixed[i].kind;
            if (ni.kind == KF_FILE_BOOTSTRAP_CHECKPOINT)
                ni.base_offset = 0;
            return ni;
        }
    }
    const char *dot = memchr(name, '.', n);
    if (!dot)
        return ni;
    size_t stem = (size_t)(dot - name);
    const char *ext = dot;
    size_t extn = n - stem;
    static const struct {
        const char *ext;
        kf_file_kind kind;
    } exts[] = {
        {".log", KF_FILE_LOG},           {".index", KF_FILE_INDEX},       {".timeindex", KF_FILE_TIMEINDEX},
        {".txnindex", KF_FILE_TXNINDEX}, {".snapshot", KF_FILE_PRODUCER_SNAPSHOT}, {".checkpoint", KF_FILE_KRAFT_CHECKPOINT},
    };
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        if (strlen(exts[i].ext) != extn || memcmp(ext, exts[i].ext, extn) != 0)
            continue;
        /* the offset counts only for a name that is one: an unknown file has -1 */
        int64_t base;
        if (exts[i].kind == KF_FILE_KRAFT_CHECKPOINT) {
            /* <20-digit end offset>-<10-digit epoch>.checkpoint */
            const char *dash = memchr(name, '-', stem);
            if (!dash)
                return ni;
            base = parse_offset(name, (size_t)(dash - name));
            if (base < 0 || !all_digits(dash + 1, stem - (size_t)(dash - name) - 1))
                return ni;
        } else {
            base = parse_offset(name, stem);
            if (base < 0)
                return ni;
        }
        ni.kind = exts[i].kind;
        ni.base_offset = base;
        return ni;
    }
    return ni;
}

bool kf_java_long(const char *s, size_t n, int64_t *v)
{
    size_t i = 0;
    bool neg = false;
    if (n && (s[0] == '-' || s[0] == '+')) {
        neg = s[0] == '-';
        i = 1;
    }
    if (i == n)
        return false;
    uint64_t acc = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        unsigned d = (unsigned)(s[i] - '0');
        if (acc > (lim - d) / 10)
            return false;
        acc = acc * 10 + d;
    }
    *v = neg ? (int64_t)(0 - acc) : (int64_t)acc;
    return true;
}

bool kf_name_offset(const char *name, int64_t *offset, size_t *prefix_len)
{
    const char *dot = strchr(name, '.');
    *prefix_len = dot ? (size_t)(dot - name) : strlen(name);
    return dot && kf_java_long(name, *prefix_len, offset);
}

bool kf_name_carries_offset(const char *name)
{
    size_t n = strlen(name);
    static const char *const exts[] = {".log", ".index", ".timeindex", ".txnindex", ".cleaned", ".swap"};
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++)
        if (ends_with(name, n, exts[i]))
            return true;
    return false;
}

bool kf_snapshot_name_parses(const char *name)
{
    size_t n = strlen(name);
    if (!ends_with(name, n, ".checkpoint") && !ends_with(name, n, ".checkpoint.part") &&
        !ends_with(name, n, ".checkpoint.deleted"))
        return true;
    int64_t off, epoch;
    return n >= 31 && kf_java_long(name, 20, &off) && kf_java_long(name + 21, 10, &epoch) && epoch >= INT32_MIN &&
           epoch <= INT32_MAX;
}

char *kf_sibling_path(const char *log_path, const char *ext)
{
    size_t n = strlen(log_path);
    const char *suffix = "";
    for (size_t i = 0; i < sizeof SUFFIXES / sizeof SUFFIXES[0]; i++)
        if (ends_with(log_path, n, SUFFIXES[i])) {
            suffix = SUFFIXES[i];
            break;
        }
    size_t sl = strlen(suffix);
    if (!ends_with(log_path, n - sl, ".log"))
        return NULL;
    size_t stem = n - sl - strlen(".log"), el = strlen(ext);
    char *p = malloc(stem + el + sl + 1);
    if (!p) {
        kf_error_nomem();
        return NULL;
    }
    memcpy(p, log_path, stem);
    memcpy(p + stem, ext, el);
    memcpy(p + stem + el, suffix, sl + 1);
    return p;
}

const char *kf_file_kind_name(kf_file_kind k)
{
    switch (k) {
    case KF_FILE_LOG: return "log";
    case KF_FILE_INDEX: return "index";
    case KF_FILE_TIMEINDEX: return "timeindex";
    case KF_FILE_TXNINDEX: return "txnindex";
    case KF_FILE_PRODUCER_SNAPSHOT: return "snapshot";
    case KF_FILE_OFFSET_CHECKPOINT: return "offset-checkpoint";
    case KF_FILE_LEADER_EPOCH: return "leader-epoch-checkpoint";
    case KF_FILE_PARTITION_METADATA: return "partition.metadata";
    case KF_FILE_META_PROPERTIES: return "meta.properties";
    case KF_FILE_KRAFT_CHECKPOINT: return "kraft-snapshot";
    case KF_FILE_BOOTSTRAP_CHECKPOINT: return "bootstrap-checkpoint";
    case KF_FILE_QUORUM_STATE: return "quorum-state";
    case KF_FILE_UNKNOWN: break;
    }
    return "unknown";
}

bool kf_parse_partition_dir(const char *name, char *topic, size_t topic_cap, int32_t *partition)
{
    size_t n = strlen(name);
    /* kf_path_base("dir/orders-0/") is "orders-0/": trailing slashes are no part of the name */
    while (n > 1 && name[n - 1] == '/')
        n--;
    /* <topic>-<partition>.<32-hex>-delete / -future / -stray */
    static const char *const tails[] = {"-delete", "-future", "-stray"};
    for (size_t i = 0; i < 3; i++) {
        if (ends_with(name, n, tails[i])) {
            const char *dot = NULL;
            for (size_t k = n - strlen(tails[i]); k > 0; k--)
                if (name[k - 1] == '.') {
                    dot = name + k - 1;
                    break;
                }
            if (dot)
                n = (size_t)(dot - name);
            break;
        }
    }
    const char *dash = NULL;
    for (size_t k = n; k > 0; k--)
        if (name[k - 1] == '-') {
            dash = name + k - 1;
            break;
        }
    if (!dash || dash == name)
        return false;
    size_t tlen = (size_t)(dash - name);
    size_t plen = n - tlen - 1;
    if (!all_digits(dash + 1, plen) || plen > 9)
        return false;
    long p = strtol(dash + 1, NULL, 10);
    if (topic_cap) {
        size_t c = tlen < topic_cap - 1 ? tlen : topic_cap - 1;
        memcpy(topic, name, c);
        topic[c] = 0;
    }
    *partition = (int32_t)p;
    return true;
}
