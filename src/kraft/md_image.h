/* md_image.h: the cluster image the metadata job builds (md_image.c,
 * md_apply.c, md_views.c):
 * brokers, controllers, features, topics and partitions, configs, client
 * quotas, ACLs, SCRAM credentials, delegation tokens and producer ids,
 * changed one decoded metadata record at a time by Kafka's replay rules
 * (docs/formats.md §14.7). Private to libkfsck; metadata.c drives it. */
#ifndef KFSCK_MD_IMAGE_H
#define KFSCK_MD_IMAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "bytes/htab.h"
#include "kfsck/sys/coord.h"
#include "kfsck/metadata.h"
#include "records/kraft_fast.h"

typedef struct md_resource {
    int8_t type;
    char *name;
    kf_md_config **cfg;        /* its keys, in no order */
    uint32_t n, cap;
} md_resource;

typedef struct md_quota_entity {
    kf_md_quota_entity *entity;
    uint32_t nentity;
    kf_md_quota **q;           /* one per key; each points at `entity` */
    uint32_t n, cap;
} md_quota_entity;

/* A direct-mapped cache in front of the topics table: most records name a
 * topic by id, and the table's keys live apart from its slots. Allocated on
 * first use (96 KiB; a cluster of a few thousand topics mostly hits it);
 * without it lookups go to the table. */
#define MD_TOPIC_CACHE 4096
typedef struct md_topic_slot {
    uint8_t id[16];
    kf_md_topic *t;            /* NULL: empty */
} md_topic_slot;

typedef struct md_image {
    md_topic_slot *tcache;     /* MD_TOPIC_CACHE slots, or NULL */
    htab brokers;              /* int32 id -> kf_md_broker* */
    htab controllers;          /* int32 id -> kf_md_controller* */
    htab features;             /* name -> kf_md_feature* (metadata.version apart: mv) */
    htab topics;               /* uuid -> kf_md_topic* */
    htab topic_names;          /* name -> kf_md_topic* (the newest topic of that name) */
    htab resources;            /* int8 type + name -> md_resource* */
    htab quotas;               /* entity key -> md_quota_entity* */
    htab acls;                 /* uuid -> kf_md_acl* */
    htab scram;                /* int8 mechanism + name -> kf_md_scram* */
    htab tokens;               /* token id -> kf_md_token* */
    bool has_mv;
    int16_t mv;
    int64_t next_producer_id;  /* -1: none issued */
    int32_t pid_broker_id;
    int64_t pid_broker_epoch;
} md_image;

/* Every live entry of an htab. */
#define HTAB_EACH(h, e) for (htab_entry *e = (h)->e; e && e < (h)->e + (h)->cap; e++) if (e->key)

void md_image_init(md_image *im);
void md_image_free(md_image *im);
/* A deep copy (for an open metadata transaction). false when out of memory
 * (dst is then freed and empty). */
bool md_image_copy(md_image *dst, const md_image *src);

typedef enum md_apply {
    MD_APPLIED = 0,
    MD_NOT_APPLIED,            /* the record cannot be applied (md_why says why) */
    MD_NOMEM,
} md_apply;

/* Why a record changed nothing: kfsck's words, and, when Kafka's image
 * deltas throw on that record (a fatal fault of the metadata loader on a
 * node with the controller role: docs/formats.md §14.7), the exception as
 * the node logs it, "<class>: <message>" — empty when Kafka lets the record
 * pass (a field kfsck needs is missing, a layout Kafka never wrote). May be
 * NULL wherever one is taken. */
typedef struct md_why {
    char msg[200];
    char thrown[320];
} md_why;

/* Apply one decoded metadata record (apiKey, version, root node of t).
 * from_snapshot: ProducerIdsRecord then keeps broker -1/-1. */
md_apply md_image_apply(md_image *im, int16_t api_key, int16_t version, const kf_dtree *t, uint32_t root,
                        bool from_snapshot, md_why *why);

/* The same for a record in its flat form (kraft_fast.h: a partition change,
 * partition, topic, config, broker registration change or no-op). */
md_apply md_image_apply_flat(md_image *im, const kf_kraft_flat *f, md_why *why);

/* Ahead of applying the n records of f (those with use[i]; n at most 64),
 * asks the CPU to fetch the image memory their changes will touch. Changes
 * nothing. */
void md_image_prefetch(const md_image *im, const kf_kraft_flat *f, const bool *use, size_t n);

/* One sorted view: n objects of one kind (the view's name says which). */
typedef struct md_view {
    const void **v;
    size_t n;
} md_view;

/* The sorted views of metadata.h, built once from the image: features by
 * name, brokers and controllers by id, topics by name, configs by resource
 * and name, quotas by entity and key, ACLs by id, SCRAM credentials by name
 * and mechanism, tokens by id. */
typedef struct md_views {
    md_view features, brokers, controllers, topics, configs, quotas, acls, scram, tokens;
} md_views;

bool md_views_build(md_views *v, const md_image *im);
void md_views_free(md_views *v);

/* ---- shared by md_image.c, md_apply.c and md_views.c ---- */

/* Copies with a NUL added (md_dupn, md_dups: NULL stays NULL) and of raw
 * bytes (NULL for n == 0); NULL when out of memory. */
char *md_dupn(const void *p, size_t n);
char *md_dups(const char *s);
void *md_dupmem(const void *p, size_t n);

/* How many values the memory of a partition's int32 list of n values holds
 * (every such list, md_apply_topics.c and md_image_copy, is allocated so):
 * a list that grows a little does not move. */
static inline uint32_t md_ints_cap(uint32_t n)
{
    uint32_t c = 4;
    while (c < n && c < (1u << 30))
        c *= 2;
    return c < n ? n : c;
}

/* Put val under key in h, freeing what was there with fn. false: out of
 * memory (val is then freed with fn). */
bool md_put(htab *h, const void *key, uint32_t klen, void *val, void (*fn)(void *));

/* Freeing the image's objects (NULL is fine). */
void md_broker_free(kf_md_broker *b);
void md_controller_free(kf_md_controller *c);
void md_partition_fields_free(kf_md_partition *p);
void md_topic_free(kf_md_topic *t);
void md_config_free(kf_md_config *c);
void md_resource_free(md_resource *r);
void md_quota_free(kf_md_quota *q);
void md_quota_entity_free(md_quota_entity *e);
void md_acl_free(kf_md_acl *a);
void md_scram_free(kf_md_scram *s);
void md_token_free(kf_md_token *k);
void md_feature_free(kf_md_feature *f);

/* Order of a client-quota entity's (type, name) pairs: by type, the default
 * (null) name first. */
int md_cmp_quota_entity(const void *a, const void *b);

#endif
