/* md_apply_internal.h: what the files that apply KRaft metadata records to
 * the cluster image share: md_apply.c dispatches by record type to one file
 * per family of records (md_apply_cluster.c brokers, controllers, features
 * and producer ids; md_apply_topics.c topics and partitions;
 * md_apply_configs.c configs and client quotas; md_apply_security.c ACLs,
 * SCRAM credentials and delegation tokens). Here: reading a record's
 * fields by name, and each family's entry points. Private. */
#ifndef KFSCK_JOBS_MD_APPLY_INTERNAL_H
#define KFSCK_JOBS_MD_APPLY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kraft/md_image.h"
#include "kfsck/sys/kraft.h"
#include "records/kraft_fast.h"

/* Writes kfsck's reason into why->msg (nothing when why is NULL). */
void md_set_msg(md_why *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Writes into why->thrown what Kafka's image delta throws on the record:
 * the exception's class, ": ", its message (nothing when why is NULL). */
void md_set_thrown(md_why *why, const char *exception, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A record's fields, read by name: the decoder's tree and the record's
 * struct node in it. */
typedef struct md_fields {
    const kf_dtree *t;
    const kf_dnode *st;
    bool has_mask;
    uint64_t mask; /* name_bit of every child's name */
} md_fields;

/* A bit for a field name from its first two characters: a name whose bit is
 * not in the record's mask is not in the record. */
static inline uint64_t name_bit(const char *n) { return (uint64_t)1 << (((unsigned char)n[0] * 31u + (unsigned char)(n[0] ? n[1] : 0)) & 63); }

/* A field of the record by name. This lookup runs a dozen times per record,
 * for fields that are often absent: absent ones mostly stop at the mask
 * (without it, replaying 1 M records takes 4.5 % more instructions). */
static inline const kf_dnode *fld(md_fields *r, const char *name)
{
    if (!r->has_mask) {
        const kf_dnode *nodes = r->t->nodes;
        for (uint32_t c = r->st->first_child; c != KF_DNODE_NONE && c < r->t->n; c = nodes[c].next)
            if (nodes[c].name)
                r->mask |= name_bit(nodes[c].name);
        r->has_mask = true;
    }
    return r->mask & name_bit(name) ? kf_dnode_field(r->t, r->st, name) : NULL;
}

static inline int64_t fint(md_fields *r, const char *name, int64_t def)
{
    const kf_dnode *n = fld(r, name);
    return n && (n->kind == KF_V_INT || n->kind == KF_V_BOOL) ? n->i : def;
}

static inline const uint8_t *fuuid(md_fields *r, const char *name)
{
    const kf_dnode *n = fld(r, name);
    return n && n->kind == KF_V_UUID ? n->p : NULL;
}

/* A string field: false when absent; *out NULL for a null string. */
static inline bool fstr(md_fields *r, const char *name, char **out, bool *nomem)
{
    const kf_dnode *n = fld(r, name);
    *out = NULL;
    if (!n)
        return false;
    if (n->kind == KF_V_NULL)
        return true;
    if (n->kind != KF_V_STRING && n->kind != KF_V_BYTES)
        return false;
    if (!(*out = md_dupn(n->p, n->len)))
        *nomem = true;
    return true;
}

static inline bool str_eq(const kf_dnode *n, const char *s)
{
    size_t k = strlen(s);
    return n && n->kind == KF_V_STRING && n->len == k && memcmp(n->p, s, k) == 0;
}

/* A uuid array into *out (replacing it; an absent or null one empties it).
 * False when out of memory. */
bool md_uuids_from(const kf_kraft_array *a, kf_md_uuids *out);

/* The key of an int32 id (a broker's, a controller's) in the image's tables,
 * into k; its length. */
static inline uint32_t key_i32(uint8_t k[4], int32_t v)
{
    memcpy(k, &v, 4);
    return 4;
}

/* Says "cannot remove <what> <id>: no such <what>" in why (id NULL: "?"):
 * MD_NOT_APPLIED. */
md_apply md_no_such(md_why *why, const char *what, const uint8_t *id);

/* Says "out of memory" in why: MD_NOMEM. */
static inline md_apply nomem(md_why *why)
{
    md_set_msg(why, "out of memory");
    return MD_NOMEM;
}

/* ---- each family's records (the record's fields in r: read by name from
 * the tree, or the flat form of kraft_fast.h for the types that have one; a
 * reason for a record that changes nothing in why) ---------------------------- */

/* md_apply_cluster.c */
md_apply md_register_broker(md_image *im, md_fields *r, int16_t version, md_why *why);
md_apply md_fence_record(md_image *im, md_fields *r, int16_t key, md_why *why);
md_apply md_broker_change(md_image *im, const kf_kraft_broker_change *r, md_why *why);
md_apply md_register_controller(md_image *im, md_fields *r, md_why *why);
md_apply md_unregister(htab *h, int32_t id, void (*fn)(void *));
md_apply md_feature_record(md_image *im, md_fields *r, md_why *why);
md_apply md_producer_ids_record(md_image *im, md_fields *r, bool from_snapshot);

/* md_apply_topics.c */
md_apply md_topic_record(md_image *im, const kf_kraft_topic *r, md_why *why);
md_apply md_partition_record(md_image *im, const kf_kraft_partition *r, int16_t version, md_why *why);
md_apply md_partition_change(md_image *im, const kf_kraft_partition_change *r, md_why *why);
md_apply md_remove_topic(md_image *im, md_fields *r, md_why *why);
md_apply md_clear_elr(md_image *im, md_fields *r, md_why *why);

/* md_apply_configs.c */
md_apply md_config_record(md_image *im, const kf_kraft_config *r, md_why *why);
md_apply md_quota_record(md_image *im, md_fields *r, md_why *why);

/* md_apply_security.c */
md_apply md_acl_record(md_image *im, md_fields *r, md_why *why);
md_apply md_remove_acl(md_image *im, md_fields *r, md_why *why);
md_apply md_scram_record(md_image *im, md_fields *r, int16_t key, md_why *why);
md_apply md_token_record(md_image *im, md_fields *r, int16_t key, md_why *why);

#endif
