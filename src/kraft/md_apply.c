/* md_apply.c: applying decoded KRaft metadata records to the cluster image
 * (md_image.h) by the rules of Kafka's image deltas (docs/formats.md §14.7;
 * ClusterDelta, TopicsDelta/TopicDelta with PartitionRegistration.merge,
 * ConfigurationsDelta, FeaturesDelta, ClientQuotasDelta, AclsDelta,
 * ScramDelta, DelegationTokenDelta, ProducerIdsDelta).
 *
 * This file dispatches a record by its type to its family's file
 * (md_apply_internal.h names them). The hot types are applied from their
 * flat form (kraft_fast.h: read from the bytes, or from the generic
 * decoder's tree); the others are read from the tree by field name. A
 * record that cannot be applied (a change to an unknown partition, a broker
 * epoch that does not match, ...) changes nothing and is reported by the
 * caller with the reason written here (md_why): kfsck's words, and, for the
 * records on which Kafka's deltas throw, the exception they throw. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kraft/md_apply_internal.h"
#include "kfsck/sys/checkpoint.h"

void md_set_msg(md_why *why, const char *fmt, ...)
{
    if (!why)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why->msg, sizeof why->msg, fmt, ap);
    va_end(ap);
}

void md_set_thrown(md_why *why, const char *exception, const char *fmt, ...)
{
    if (!why)
        return;
    int n = snprintf(why->thrown, sizeof why->thrown, "%s: ", exception);
    if (n < 0 || (size_t)n >= sizeof why->thrown)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why->thrown + n, sizeof why->thrown - (size_t)n, fmt, ap);
    va_end(ap);
}

static void why_clear(md_why *why)
{
    if (why)
        why->msg[0] = why->thrown[0] = 0;
}

md_apply md_no_such(md_why *why, const char *what, const uint8_t *id)
{
    char b64[23] = "?";
    if (id)
        kf_uuid_to_b64(id, b64);
    md_set_msg(why, "cannot remove %s %s: no such %s", what, b64, what);
    return MD_NOT_APPLIED;
}

bool md_uuids_from(const kf_kraft_array *a, kf_md_uuids *out)
{
    uint32_t n = a->present ? a->n : 0;
    uint8_t(*v)[16] = n ? malloc(n * sizeof *v) : NULL;
    if (n && !v)
        return false;
    if (n)
        kf_kraft_uuids_copy(a, v);
    free(out->v);
    out->v = v;
    out->n = n;
    return true;
}

md_apply md_image_apply_flat(md_image *im, const kf_kraft_flat *f, md_why *why)
{
    why_clear(why);
    switch (f->api_key) {
    case KF_MD_TOPIC: return md_topic_record(im, &f->u.topic, why);
    case KF_MD_PARTITION: return md_partition_record(im, &f->u.partition, f->version, why);
    case KF_MD_CONFIG: return md_config_record(im, &f->u.config, why);
    case KF_MD_PARTITION_CHANGE: return md_partition_change(im, &f->u.partition_change, why);
    case KF_MD_BROKER_REGISTRATION_CHANGE: return md_broker_change(im, &f->u.broker_change, why);
    case KF_MD_NO_OP: return MD_APPLIED; /* nothing but the offset */
    default:
        md_set_msg(why, "record type %d has no replay rule", f->api_key);
        return MD_NOT_APPLIED;
    }
}

md_apply md_image_apply(md_image *im, int16_t key, int16_t version, const kf_dtree *t, uint32_t root,
                        bool from_snapshot, md_why *why)
{
    why_clear(why);
    if (root == KF_DNODE_NONE || root >= t->n)
        return MD_NOT_APPLIED;
    kf_kraft_flat f;
    if (kf_kraft_flat_from_tree(t, root, key, version, &f)) /* the types with a flat form */
        return md_image_apply_flat(im, &f, why);
    md_fields r = {.t = t, .st = &t->nodes[root]};
    switch (key) {
    case KF_MD_REGISTER_BROKER: return md_register_broker(im, &r, version, why);
    case KF_MD_UNREGISTER_BROKER:
        return md_unregister(&im->brokers, (int32_t)fint(&r, "broker_id", -1), (void (*)(void *))md_broker_free);
    case KF_MD_FENCE_BROKER:
    case KF_MD_UNFENCE_BROKER: return md_fence_record(im, &r, key, why);
    case KF_MD_REMOVE_TOPIC: return md_remove_topic(im, &r, why);
    case KF_MD_DELEGATION_TOKEN:
    case KF_MD_REMOVE_DELEGATION_TOKEN: return md_token_record(im, &r, key, why);
    case KF_MD_USER_SCRAM_CREDENTIAL:
    case KF_MD_REMOVE_USER_SCRAM_CREDENTIAL: return md_scram_record(im, &r, key, why);
    case KF_MD_FEATURE_LEVEL: return md_feature_record(im, &r, why);
    case KF_MD_CLIENT_QUOTA: return md_quota_record(im, &r, why);
    case KF_MD_PRODUCER_IDS: return md_producer_ids_record(im, &r, from_snapshot);
    case KF_MD_ACCESS_CONTROL_ENTRY: return md_acl_record(im, &r, why);
    case KF_MD_REMOVE_ACCESS_CONTROL_ENTRY: return md_remove_acl(im, &r, why);
    case KF_MD_REGISTER_CONTROLLER: return md_register_controller(im, &r, why);
    case KF_MD_UNREGISTER_CONTROLLER:
        return md_unregister(&im->controllers, (int32_t)fint(&r, "controller_id", -1), (void (*)(void *))md_controller_free);
    case KF_MD_CLEAR_ELR: return md_clear_elr(im, &r, why);
    case KF_MD_ZK_MIGRATION_STATE: return MD_APPLIED; /* nothing but the offset (4.x: a no-op) */
    case KF_MD_ACCESS_CONTROL:
    case KF_MD_REMOVE_FEATURE_LEVEL:
        md_set_msg(why, "a record type Kafka defined but never wrote (no longer known to 4.x)");
        return MD_NOT_APPLIED;
    default:
        md_set_msg(why, "record type %d has no replay rule", key);
        return MD_NOT_APPLIED;
    }
}
