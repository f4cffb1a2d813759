/* remote_storage.c: the remote storage against the replayed metadata
 * (docs/formats.md §22.6). The objects come from a copy or mount of the
 * storage (--storage: every regular file under it, its path below the
 * directory the key) or from a listing (--listing: `KEY SIZE` lines, or
 * `aws s3 ls --recursive` / `gsutil ls -l` output). A key is understood
 * when it ends the way Kafka's LocalTieredStorage
 * (<topic>-<partition>-<topic id>/<start offset>-<segment id>.<suffix>) or
 * Aiven's tiered-storage plugin for S3, GCS and Azure
 * ([prefix]<topic>-<topic id>/<partition>/<start offset>-<segment
 * id>.<suffix>) names its objects; any prefix before is ignored.
 *
 * An object of a live segment marks what that segment has in the storage;
 * an object of a segment id no live metadata of its partition has is an
 * orphan (bytes to clean), gathered by segment id with its keys. Objects of
 * partitions whose __remote_log_metadata partition is not among the inputs
 * are left unjudged. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format/order.h"
#include "bytes/grow.h"
#include "bytes/error.h"
#include "jobs/remote/remote_internal.h"
#include "kfsck/sys/checkpoint.h"

const char *kf_remote_object_name(unsigned bit)
{
    switch (bit) {
    case KF_REMOTE_OBJ_LOG: return "log";
    case KF_REMOTE_OBJ_INDEX: return "index";
    case KF_REMOTE_OBJ_TIMEINDEX: return "timeindex";
    case KF_REMOTE_OBJ_TXNINDEX: return "txnindex";
    case KF_REMOTE_OBJ_SNAPSHOT: return "snapshot";
    case KF_REMOTE_OBJ_EPOCHS: return "leader_epoch_checkpoint";
    case KF_REMOTE_OBJ_MANIFEST: return "rsm-manifest";
    case KF_REMOTE_OBJ_INDEXES: return "indexes";
    default: return "other";
    }
}

/* ---- keys ------------------------------------------------------------------------- */

static bool all_digits(const char *s, size_t n)
{
    if (!n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

/* A non-negative decimal that fits an int64 (leading zeros allowed: Kafka
 * writes offsets in 20 digits). */
static bool decimal(const char *s, size_t n, int64_t *v)
{
    if (!all_digits(s, n))
        return false;
    while (n > 1 && *s == '0') {
        s++;
        n--;
    }
    if (n > 19)
        return false;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++)
        x = x * 10 + (uint64_t)(s[i] - '0');
    if (x > INT64_MAX)
        return false;
    *v = (int64_t)x;
    return true;
}

/* "<topic>-<uuid>" at s[0..n): the topic's length, or 0. */
static size_t topic_dash_uuid(const char *s, size_t n, uint8_t id[16])
{
    if (n < 24 || s[n - 23] != '-' || kf_uuid_from_b64(s + n - 22, 22, id) != KF_OK)
        return 0;
    return n - 23;
}

static unsigned object_kind(const char *s, size_t n)
{
    static const struct {
        const char *suffix;
        unsigned bit;
    } kinds[] = {
        {"log", KF_REMOTE_OBJ_LOG}, {"index", KF_REMOTE_OBJ_INDEX}, {"timeindex", KF_REMOTE_OBJ_TIMEINDEX},
        {"txnindex", KF_REMOTE_OBJ_TXNINDEX}, {"snapshot", KF_REMOTE_OBJ_SNAPSHOT},
        {"leader_epoch_checkpoint", KF_REMOTE_OBJ_EPOCHS}, {"leader-epoch-checkpoint", KF_REMOTE_OBJ_EPOCHS},
        {"rsm-manifest", KF_REMOTE_OBJ_MANIFEST}, {"indexes", KF_REMOTE_OBJ_INDEXES},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strlen(kinds[i].suffix) == n && !memcmp(kinds[i].suffix, s, n))
            return kinds[i].bit;
    return KF_REMOTE_OBJ_OTHER;
}

void rm_key_parse(const char *key, size_t len, rm_key *k)
{
    memset(k, 0, sizeof *k);
    /* the components from the end: name, parent, grandparent */
    size_t end[3], beg[3], nc = 0;
    size_t e = len;
    while (nc < 3) {
        size_t b = e;
        while (b > 0 && key[b - 1] != '/')
            b--;
        beg[nc] = b;
        end[nc] = e;
        nc++;
        if (b == 0)
            break;
        e = b - 1;
    }
    const char *name = key + beg[0];
    size_t nlen = end[0] - beg[0];
    const char *dash = memchr(name, '-', nlen);
    if (!dash)
        return;
    size_t digits = (size_t)(dash - name);
    if (!decimal(name, digits, &k->start) || nlen < digits + 1 + 22 + 2 || name[digits + 23] != '.' ||
        kf_uuid_from_b64(name + digits + 1, 22, k->segment_id) != KF_OK)
        return;
    const char *suffix = name + digits + 24;
    k->object = object_kind(suffix, (size_t)(name + nlen - suffix));
    k->stem_end = beg[0] + digits + 23;
    if (nc >= 2 && all_digits(key + beg[1], end[1] - beg[1]) && nc >= 3) {
        /* Aiven: <topic>-<topic id>/<partition>/<name> */
        int64_t p;
        size_t tl = topic_dash_uuid(key + beg[2], end[2] - beg[2], k->topic_id);
        if (tl && decimal(key + beg[1], end[1] - beg[1], &p) && p <= INT32_MAX) {
            k->partition = (int32_t)p;
            k->topic = key + beg[2];
            k->topic_len = tl;
            k->has_partition = true;
            k->aiven = true;
        }
    } else if (nc >= 2) {
        /* LocalTieredStorage: <topic>-<partition>-<topic id>/<name> */
        const char *d = key + beg[1];
        size_t tl = topic_dash_uuid(d, end[1] - beg[1], k->topic_id);
        size_t pd = tl;
        while (pd > 0 && d[pd - 1] >= '0' && d[pd - 1] <= '9')
            pd--;
        int64_t p;
        if (tl && pd > 1 && pd < tl && d[pd - 1] == '-' && decimal(d + pd, tl - pd, &p) && p <= INT32_MAX) {
            k->partition = (int32_t)p;
            k->topic = d;
            k->topic_len = pd - 1;
            k->has_partition = true;
        }
    }
    k->ok = k->has_partition;
}

/* ---- the metadata partition of a user partition ------------------------------------ */

/* Kafka's Utils.murmur2. */
static int32_t murmur2(const uint8_t *data, size_t len)
{
    const uint32_t m = 0x5bd1e995u;
    uint32_t h = 0x9747b28cu ^ (uint32_t)len;
    size_t n4 = len / 4;
    for (size_t i = 0; i < n4; i++) {
        const uint8_t *p = data + i * 4;
        uint32_t k = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        k *= m;
        k ^= k >> 24;
        k *= m;
        h *= m;
        h ^= k;
    }
    const uint8_t *t = data + (len & ~(size_t)3);
    switch (len % 4) {
    case 3: h ^= (uint32_t)t[2] << 16; /* fall through */
    case 2: h ^= (uint32_t)t[1] << 8; /* fall through */
    case 1:
        h ^= t[0];
        h *= m;
    }
    h ^= h >> 13;
    h *= m;
    h ^= h >> 15;
    return (int32_t)h;
}

static uint32_t long_hash(uint64_t v) { return (uint32_t)(v ^ (v >> 32)); }

int32_t kf_remote_metadata_partition(const uint8_t topic_id[16], int32_t partition, int32_t n)
{
    if (n <= 0)
        return -1;
    uint64_t msb = 0, lsb = 0;
    for (int i = 0; i < 8; i++) {
        msb = msb << 8 | topic_id[i];
        lsb = lsb << 8 | topic_id[8 + i];
    }
    /* Objects.hash(lsb, msb, partition) in int32 arithmetic */
    uint32_t h = 1;
    h = 31 * h + long_hash(lsb);
    h = 31 * h + long_hash(msb);
    h = 31 * h + (uint32_t)partition;
    uint8_t be[4] = {(uint8_t)(h >> 24), (uint8_t)(h >> 16), (uint8_t)(h >> 8), (uint8_t)h};
    return (int32_t)(((uint32_t)murmur2(be, 4) & 0x7fffffffu) % (uint32_t)n);
}

bool rm_judged(const rm_judge *j, const uint8_t topic_id[16], int32_t partition, int32_t *mpart)
{
    if (j->n <= 0) {
        *mpart = -1;
        return true;
    }
    *mpart = kf_remote_metadata_partition(topic_id, partition, j->n);
    return j->replayed[*mpart];
}

/* ---- one object --------------------------------------------------------------------- */

typedef struct reader {
    rm_storage *sg;
    rm_state *st;
    const rm_judge *j;
    int rc;
} reader;

static rm_orphan *orphan_of(reader *r, const rm_key *k)
{
    rm_storage *sg = r->sg;
    bool created;
    void **slot = htab_put(&sg->orphan_index, k->segment_id, 16, &created);
    if (!slot)
        return NULL;
    if (!created)
        return &sg->orphans[(uintptr_t)*slot - 1];
    if (!KF_GROW(sg->orphans, sg->norphans, sg->caporphans, 16))
        goto fail;
    rm_orphan *o = &sg->orphans[sg->norphans];
    memset(o, 0, sizeof *o);
    o->topic = malloc(k->topic_len + 1);
    if (!o->topic)
        goto fail;
    memcpy(o->topic, k->topic, k->topic_len);
    o->topic[k->topic_len] = 0;
    memcpy(o->segment_id, k->segment_id, 16);
    memcpy(o->topic_id, k->topic_id, 16);
    o->partition = k->partition;
    o->start = k->start;
    *slot = (void *)(uintptr_t)(++sg->norphans);
    return o;
fail:
    htab_del(&sg->orphan_index, k->segment_id, 16);
    return NULL;
}

static void object(reader *r, const char *key, size_t len, uint64_t size)
{
    r->sg->objects++;
    rm_key k;
    rm_key_parse(key, len, &k);
    if (!k.ok) {
        r->sg->unrecognised++;
        return;
    }
    int32_t mpart;
    if (!rm_judged(r->j, k.topic_id, k.partition, &mpart)) {
        r->sg->unjudged++;
        return;
    }
    uint32_t part = rm_part_get(r->st, k.topic_id, k.partition, k.topic, k.topic_len, false);
    uint32_t seg = part == RM_NONE ? RM_NONE : rm_seg_find(r->st, part, k.segment_id);
    if (seg != RM_NONE) {
        rm_seg *s = &r->st->segs[seg];
        s->objects |= (uint16_t)k.object;
        s->aiven |= k.aiven;
        s->storage_bytes += size;
        if (!s->key_prefix) {
            s->key_prefix = malloc(k.stem_end + 1);
            if (!s->key_prefix) {
                r->rc = KF_ERR_NOMEM;
                return;
            }
            memcpy(s->key_prefix, key, k.stem_end);
            s->key_prefix[k.stem_end] = 0;
        }
        return;
    }
    rm_orphan *o = orphan_of(r, &k);
    if (!o) {
        r->rc = KF_ERR_NOMEM;
        return;
    }
    if (!KF_GROW(o->keys, o->nkeys, o->capkeys, 8)) {
        r->rc = KF_ERR_NOMEM;
        return;
    }
    char *copy = malloc(len + 1);
    if (!copy) {
        r->rc = KF_ERR_NOMEM;
        return;
    }
    memcpy(copy, key, len);
    copy[len] = 0;
    o->keys[o->nkeys++] = copy;
    o->bytes += size;
}

/* ---- a directory tree ---------------------------------------------------------------- */

#define MAX_DEPTH 16

/* Every regular file below path (whose key starts at path[key_at]). */
static int walk(reader *r, char *path, size_t len, size_t cap, size_t key_at, int depth)
{
    DIR *d = opendir(path);
    if (!d)
        return depth ? KF_OK : kf_error_set(KF_ERR_IO, errno, path, "cannot be read");
    struct dirent *de;
    while (r->rc == KF_OK && (de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        size_t nl = strlen(de->d_name);
        if (len + 1 + nl + 1 > cap)
            continue; /* a path longer than PATH_MAX is no object of a known layout */
        path[len] = '/';
        memcpy(path + len + 1, de->d_name, nl + 1);
        struct stat st;
        if (lstat(path, &st) == 0) {
            if (S_ISLNK(st.st_mode) && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
                ; /* a link to a directory is not followed */
            else if (S_ISDIR(st.st_mode) && depth < MAX_DEPTH)
                walk(r, path, len + 1 + nl, cap, key_at, depth + 1);
            else if (S_ISREG(st.st_mode))
                object(r, path + key_at, len + 1 + nl - key_at, (uint64_t)st.st_size);
        }
        path[len] = 0;
    }
    closedir(d);
    return r->rc;
}

static int read_dir(reader *r, const char *dir)
{
    size_t cap = 4096;
    char *path = malloc(cap);
    if (!path)
        return kf_error_nomem();
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')
        len--;
    if (len + 2 > cap) {
        free(path);
        return kf_error_set(KF_ERR_IO, ENAMETOOLONG, dir, "cannot be read");
    }
    memcpy(path, dir, len);
    path[len] = 0;
    int rc = walk(r, path, len, cap, len + 1, 0);
    free(path);
    return rc;
}

/* ---- a listing ------------------------------------------------------------------------- */

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* One line of a listing: its key and size, or false. */
static bool listing_line(char *s, size_t n, const char **key, size_t *klen, uint64_t *size)
{
    while (n && is_space(s[n - 1]))
        n--;
    size_t i = 0;
    while (i < n && is_space(s[i]))
        i++;
    if (i == n || s[i] == '#')
        return true; /* blank or a comment: nothing */
    int64_t v;
    /* aws s3 ls --recursive: "2024-01-31 12:00:00       1234 key" */
    if (n - i > 20 && s[i + 4] == '-' && s[i + 7] == '-' && s[i + 10] == ' ' && s[i + 13] == ':' && s[i + 16] == ':') {
        size_t a = i + 19;
        while (a < n && is_space(s[a]))
            a++;
        size_t b = a;
        while (b < n && s[b] >= '0' && s[b] <= '9')
            b++;
        if (b > a && b < n && s[b] == ' ' && decimal(s + a, b - a, &v)) {
            *key = s + b + 1;
            *klen = n - b - 1;
            *size = (uint64_t)v;
            return *klen > 0;
        }
        return false;
    }
    /* gsutil ls -l: "      1234  2024-01-31T12:00:00Z  gs://bucket/key" */
    size_t b = i;
    while (b < n && s[b] >= '0' && s[b] <= '9')
        b++;
    if (b > i && b < n && is_space(s[b])) {
        size_t c = b;
        while (c < n && is_space(s[c]))
            c++;
        size_t d = c;
        while (d < n && !is_space(s[d]))
            d++;
        if (d - c == 20 && s[c + 10] == 'T' && s[c + 19] == 'Z' && decimal(s + i, b - i, &v)) {
            while (d < n && is_space(s[d]))
                d++;
            *key = s + d;
            *klen = n - d;
            *size = (uint64_t)v;
            return *klen > 0;
        }
    }
    if (n - i >= 6 && !memcmp(s + i, "TOTAL:", 6))
        return true; /* gsutil's last line */
    /* KEY SIZE */
    size_t t = n;
    while (t > i && !is_space(s[t - 1]))
        t--;
    if (t == i || !decimal(s + t, n - t, &v))
        return false;
    size_t ke = t;
    while (ke > i && is_space(s[ke - 1]))
        ke--;
    *key = s + i;
    *klen = ke - i;
    *size = (uint64_t)v;
    return true;
}

#define LINE_MAX_BYTES 65536

static int read_listing(reader *r, const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return kf_error_set(KF_ERR_IO, errno, path, "cannot be read");
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    while (r->rc == KF_OK && (got = getline(&line, &cap, f)) >= 0) {
        size_t n = (size_t)got;
        if (n && line[n - 1] == '\n')
            n--;
        const char *key = NULL;
        size_t klen = 0;
        uint64_t size = 0;
        if (n > LINE_MAX_BYTES || !listing_line(line, n, &key, &klen, &size))
            r->sg->bad_lines++;
        else if (key)
            object(r, key, klen, size);
    }
    int err = ferror(f) ? errno : 0;
    free(line);
    fclose(f);
    if (r->rc == KF_OK && err)
        return kf_error_set(KF_ERR_IO, err, path, "cannot be read");
    return r->rc;
}

/* ---- the driver's calls ------------------------------------------------------------------ */

static int cmp_orphan(const void *a, const void *b)
{
    const rm_orphan *x = a, *y = b;
    int c = kf_cmp_topic_partition(x->topic, x->partition, y->topic, y->partition);
    if (c)
        return c;
    c = memcmp(x->topic_id, y->topic_id, 16);
    if (c)
        return c;
    return (x->start > y->start) - (x->start < y->start);
}

static int cmp_key(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int rm_storage_read(rm_storage *sg, rm_state *st, const rm_judge *j, const kf_remote_opts *o)
{
    reader r = {.sg = sg, .st = st, .j = j, .rc = KF_OK};
    int rc = o->storage_dir ? read_dir(&r, o->storage_dir) : read_listing(&r, o->listing_path);
    if (rc != KF_OK)
        return rc;
    if (sg->norphans)
        qsort(sg->orphans, sg->norphans, sizeof *sg->orphans, cmp_orphan);
    for (size_t i = 0; i < sg->norphans; i++)
        qsort(sg->orphans[i].keys, sg->orphans[i].nkeys, sizeof(char *), cmp_key);
    htab_free(&sg->orphan_index); /* the order changed: the index is no longer needed */
    return KF_OK;
}

void rm_storage_free(rm_storage *sg)
{
    for (size_t i = 0; i < sg->norphans; i++) {
        for (size_t k = 0; k < sg->orphans[i].nkeys; k++)
            free(sg->orphans[i].keys[k]);
        free(sg->orphans[i].keys);
        free(sg->orphans[i].topic);
    }
    free(sg->orphans);
    htab_free(&sg->orphan_index);
    memset(sg, 0, sizeof *sg);
}
