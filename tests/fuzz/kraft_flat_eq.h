/* kraft_flat_eq.h: whether two flat forms of a KRaft metadata record
 * (records/kraft_fast.h) hold the same fields, arrays compared by their
 * elements wherever they are held (the record's bytes or a tree). Shared by
 * tests/fuzz/fuzz_kraft_fast.c and tests/unit/test_kraft_fast.c, which
 * compare the tree-less decoder with the generic one. */
#ifndef KFSCK_TEST_KRAFT_FLAT_EQ_H
#define KFSCK_TEST_KRAFT_FLAT_EQ_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "records/kraft_fast.h"

static bool kfe_array(const kf_kraft_array *a, const kf_kraft_array *b, size_t elem)
{
    if (a->present != b->present || a->n != b->n)
        return false;
    if (!a->n)
        return true;
    uint8_t *x = malloc(a->n * elem), *y = malloc(a->n * elem);
    if (!x || !y)
        abort();
    if (elem == 16) {
        kf_kraft_uuids_copy(a, (uint8_t(*)[16])x);
        kf_kraft_uuids_copy(b, (uint8_t(*)[16])y);
    } else {
        kf_kraft_ints_copy(a, (int32_t *)(void *)x);
        kf_kraft_ints_copy(b, (int32_t *)(void *)y);
    }
    bool same = memcmp(x, y, a->n * elem) == 0;
    free(x);
    free(y);
    return same;
}

static bool kfe_str(const kf_kraft_str *a, const kf_kraft_str *b)
{
    return (a->p == NULL) == (b->p == NULL) && a->len == b->len && (!a->len || !memcmp(a->p, b->p, a->len));
}

static bool kfe_uuid(const uint8_t *a, const uint8_t *b)
{
    return (a == NULL) == (b == NULL) && (!a || !memcmp(a, b, 16));
}

static bool kfe_partition(const kf_kraft_partition_fields *a, const kf_kraft_partition_fields *b)
{
    return a->partition_id == b->partition_id && kfe_uuid(a->topic_id, b->topic_id) && a->leader == b->leader &&
           a->leader_recovery_state == b->leader_recovery_state && kfe_array(&a->replicas, &b->replicas, 4) &&
           kfe_array(&a->isr, &b->isr, 4) && kfe_array(&a->removing_replicas, &b->removing_replicas, 4) &&
           kfe_array(&a->adding_replicas, &b->adding_replicas, 4) && kfe_array(&a->elr, &b->elr, 4) &&
           kfe_array(&a->last_known_elr, &b->last_known_elr, 4) && kfe_array(&a->directories, &b->directories, 16);
}

/* False too for a type without a flat form. */
static bool kraft_flat_equal(const kf_kraft_flat *f, const kf_kraft_flat *g)
{
    if (f->api_key != g->api_key || f->version != g->version)
        return false;
    switch (f->api_key) {
    case KF_MD_TOPIC:
        return kfe_str(&f->u.topic.name, &g->u.topic.name) && kfe_uuid(f->u.topic.topic_id, g->u.topic.topic_id);
    case KF_MD_PARTITION:
        return kfe_partition(&f->u.partition.part, &g->u.partition.part) &&
               f->u.partition.leader_epoch == g->u.partition.leader_epoch &&
               f->u.partition.partition_epoch == g->u.partition.partition_epoch;
    case KF_MD_CONFIG: {
        const kf_kraft_config *a = &f->u.config, *b = &g->u.config;
        return a->resource_type == b->resource_type && a->has_names == b->has_names &&
               a->has_value == b->has_value && kfe_str(&a->resource_name, &b->resource_name) &&
               kfe_str(&a->name, &b->name) && kfe_str(&a->value, &b->value);
    }
    case KF_MD_PARTITION_CHANGE: return kfe_partition(&f->u.partition_change.part, &g->u.partition_change.part);
    case KF_MD_BROKER_REGISTRATION_CHANGE: {
        const kf_kraft_broker_change *a = &f->u.broker_change, *b = &g->u.broker_change;
        return a->broker_id == b->broker_id && a->broker_epoch == b->broker_epoch && a->fenced == b->fenced &&
               a->in_controlled_shutdown == b->in_controlled_shutdown && kfe_array(&a->log_dirs, &b->log_dirs, 16) &&
               kfe_array(&a->cordoned_log_dirs, &b->cordoned_log_dirs, 16);
    }
    case KF_MD_NO_OP: return true;
    default: return false;
    }
}

#endif
