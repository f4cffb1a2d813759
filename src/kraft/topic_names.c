/* topic_names.c: the topic id <-> name table (include/kfsck/topic_names.h)
 * and the silent image of the metadata log among a command's PATHs. Two
 * hash tables, by id and by name, over one list of entries. */
#include "kfsck/topic_names.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
#include "bytes/htab.h"
#include "kfsck/sys/checkpoint.h"
#include "kfsck/sys/file.h"

struct kf_topic_names {
    const kf_topic_names *under;
    htab by_id;    /* 16 id bytes -> char* name (owned) */
    htab by_name;  /* name bytes -> 16 id bytes (owned) */
};

int kf_topic_names_new(kf_topic_names **out, const kf_topic_names *under)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return kf_error_nomem();
    (*out)->under = under;
    return KF_OK;
}

void kf_topic_names_free(kf_topic_names *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->by_id.cap; i++)
        if (t->by_id.e[i].key)
            free(t->by_id.e[i].val);
    for (size_t i = 0; i < t->by_name.cap; i++)
        if (t->by_name.e[i].key)
            free(t->by_name.e[i].val);
    htab_free(&t->by_id);
    htab_free(&t->by_name);
    free(t);
}

/* key -> a copy of the n bytes of val (with a NUL after them), unless key
 * has one already: the first source wins. */
static int put_first(htab *h, const void *key, uint32_t klen, const void *val, size_t n)
{
    bool created;
    void **slot = htab_put(h, key, klen, &created);
    if (!slot)
        return kf_error_nomem();
    if (!created)
        return KF_OK;
    char *copy = malloc(n + 1);
    if (!copy) {
        htab_del(h, key, klen);
        return kf_error_nomem();
    }
    memcpy(copy, val, n);
    copy[n] = 0;
    *slot = copy;
    return KF_OK;
}

int kf_topic_names_add(kf_topic_names *t, const uint8_t id[16], const char *name, size_t len)
{
    /* an id's first name, a name's first id (a recreated topic keeps the one named first) */
    int rc = put_first(&t->by_id, id, 16, name, len);
    return rc == KF_OK ? put_first(&t->by_name, name, (uint32_t)len, id, 16) : rc;
}

const char *kf_topic_names_name(const kf_topic_names *t, const uint8_t id[16])
{
    for (; t; t = t->under) {
        const char *s = htab_get(&t->by_id, id, 16);
        if (s)
            return s;
    }
    return NULL;
}

bool kf_topic_names_id(const kf_topic_names *t, const char *name, uint8_t id[16])
{
    for (; t; t = t->under) {
        const uint8_t *x = htab_get(&t->by_name, name, (uint32_t)strlen(name));
        if (x) {
            memcpy(id, x, 16);
            return true;
        }
    }
    return false;
}

int kf_metadata_of_paths(kf_metadata **out, char *const *paths, size_t n, size_t max_batch_bytes)
{
    kf_metadata_opts mo;
    kf_metadata_opts_init(&mo);
    mo.max_batch_bytes = max_batch_bytes;
    int rc = kf_metadata_run(out, paths, n, &mo, NULL, NULL);
    return rc == KF_ERR_NOMEM ? rc : KF_OK;
}

/* 1. the metadata log's topics */
static int from_metadata(kf_topic_names *t, char *const *paths, size_t n, size_t max_batch_bytes)
{
    kf_metadata *m;
    int rc = kf_metadata_of_paths(&m, paths, n, max_batch_bytes);
    const kf_md_topic *const *topics;
    size_t nt = m ? kf_metadata_topics(m, &topics) : 0;
    for (size_t i = 0; i < nt && rc == KF_OK; i++)
        rc = kf_topic_names_add(t, topics[i]->id, topics[i]->name, strlen(topics[i]->name));
    kf_metadata_free(m);
    return rc;
}

/* 2. the partition.metadata files of the inputs' partition directories */
static int from_inputs(kf_topic_names *t, const kf_inputs *in)
{
    int rc = KF_OK;
    for (size_t i = 0; i < in->n && rc == KF_OK; i++) {
        const kf_partition *p = &in->parts[i];
        for (size_t c = 0; c < p->ncopies && rc == KF_OK; c++) {
            char *pm = kf_path_join(p->copies[c].label, "partition.metadata");
            if (!pm)
                return kf_error_nomem();
            kf_partition_metadata md;
            int r = kf_partition_metadata_read(pm, &md);
            if (r == KF_ERR_NOMEM)
                rc = r;
            if (r == KF_OK && p->topic[0])
                rc = kf_topic_names_add(t, md.topic_id, p->topic, strlen(p->topic));
            free(pm);
        }
    }
    return rc;
}

int kf_topic_names_build(kf_topic_names **out, char *const *paths, size_t n, const kf_inputs *in,
                         size_t max_batch_bytes)
{
    int rc = kf_topic_names_new(out, NULL);
    if (rc == KF_OK)
        rc = from_metadata(*out, paths, n, max_batch_bytes);
    if (rc == KF_OK)
        rc = from_inputs(*out, in);
    if (rc != KF_OK) {
        kf_topic_names_free(*out);
        *out = NULL;
    }
    return rc;
}
