/* md_apply_cluster.c: the cluster's records applied to the image
 * (ClusterDelta, FeaturesDelta, ProducerIdsDelta): broker registrations and
 * their fencing and changes, controller registrations, feature levels
 * (metadata.version among them) and the next producer id block. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kraft/md_apply_internal.h"

/* The structs of arr (an array node; NULL or another kind: none) in a new
 * array of elements of size bytes, each filled from its fields by read, the
 * elements read in *n. Out of memory sets *nomem, the elements read so far
 * staying in the array for their owner's free to free. */
static void *structs_from(const kf_dtree *t, const kf_dnode *arr, size_t size,
                          void (*read)(md_fields *e, void *elem, bool *nomem), uint32_t *n, bool *nomem)
{
    *n = 0;
    uint32_t len = arr && arr->kind == KF_V_ARRAY ? arr->n_children : 0;
    char *v = len ? calloc(len, size) : NULL;
    if (len && !v) {
        *nomem = true;
        return NULL;
    }
    for (uint32_t c = len ? arr->first_child : KF_DNODE_NONE; c != KF_DNODE_NONE && *n < len; c = t->nodes[c].next) {
        md_fields e = {.t = t, .st = &t->nodes[c]};
        read(&e, v + (size_t)*n * size, nomem);
        ++*n;
    }
    return v;
}

static void listener_read(md_fields *e, void *elem, bool *nomem)
{
    kf_md_listener *l = elem;
    fstr(e, "name", &l->name, nomem);
    fstr(e, "host", &l->host, nomem);
    l->port = (int32_t)fint(e, "port", 0);
    l->security_protocol = (int16_t)fint(e, "security_protocol", -1);
}

static void range_read(md_fields *e, void *elem, bool *nomem)
{
    kf_md_version_range *r = elem;
    fstr(e, "name", &r->name, nomem);
    r->min = (int16_t)fint(e, "min_supported_version", 0);
    r->max = (int16_t)fint(e, "max_supported_version", 0);
}

/* A registration (a broker's, a controller's) put in h under its id, over
 * the one there was; when its reading ran out of memory (!ok), freed with fn
 * instead. */
static md_apply put_registered(htab *h, int32_t id, void *obj, bool ok, void (*fn)(void *), md_why *why)
{
    if (!ok) {
        fn(obj);
        return nomem(why);
    }
    uint8_t k[4];
    return md_put(h, k, key_i32(k, id), obj, fn) ? MD_APPLIED : nomem(why);
}

md_apply md_register_broker(md_image *im, md_fields *r, int16_t version, md_why *why)
{
    kf_md_broker *b = calloc(1, sizeof *b);
    if (!b)
        return nomem(why);
    bool nm = false;
    b->id = (int32_t)fint(r, "broker_id", -1);
    b->epoch = fint(r, "broker_epoch", -1);
    const uint8_t *inc = fuuid(r, "incarnation_id");
    if (inc)
        memcpy(b->incarnation_id, inc, 16);
    b->is_migrating_zk_broker = fint(r, "is_migrating_zk_broker", 0) != 0;
    b->fenced = fint(r, "fenced", 1) != 0;
    b->in_controlled_shutdown = fint(r, "in_controlled_shutdown", 0) != 0;
    fstr(r, "rack", &b->rack, &nm);
    kf_kraft_array dirs, cord;
    kf_kraft_array_of_node(r->t, fld(r, "log_dirs"), true, &dirs);
    kf_kraft_array_of_node(r->t, fld(r, "cordoned_log_dirs"), true, &cord);
    b->listeners = structs_from(r->t, fld(r, "end_points"), sizeof *b->listeners, listener_read, &b->nlisteners, &nm);
    b->features = structs_from(r->t, fld(r, "features"), sizeof *b->features, range_read, &b->nfeatures, &nm);
    bool ok = !nm && md_uuids_from(&dirs, &b->log_dirs);
    if (ok && version >= 4 && cord.present) {
        b->has_cordoned = true;
        ok = md_uuids_from(&cord, &b->cordoned_log_dirs);
    }
    return put_registered(&im->brokers, b->id, b, ok, (void (*)(void *))md_broker_free, why);
}

/* The broker a fence/unfence/change record names, when it is registered with
 * that epoch (ClusterDelta.getBrokerOrThrow, which throws otherwise). */
static kf_md_broker *broker_checked(md_image *im, int32_t id, int64_t epoch, const char *what, md_why *why)
{
    uint8_t k[4];
    kf_md_broker *b = htab_get(&im->brokers, k, key_i32(k, id));
    if (!b) {
        md_set_msg(why, "cannot %s broker %d: it is not registered", what, (int)id);
        md_set_thrown(why, "java.lang.IllegalStateException",
                      "Tried to %s broker %d, but that broker was not registered.", what, (int)id);
        return NULL;
    }
    if (b->epoch != epoch) {
        md_set_msg(why, "cannot %s broker %d: epoch %lld does not match its registration's %lld", what, (int)id,
                   (long long)epoch, (long long)b->epoch);
        md_set_thrown(why, "java.lang.IllegalStateException",
                      "Tried to %s broker %d, but the given epoch, %lld, did not match the current broker epoch, %lld",
                      what, (int)id, (long long)epoch, (long long)b->epoch);
        return NULL;
    }
    return b;
}

md_apply md_fence_record(md_image *im, md_fields *r, int16_t key, md_why *why)
{
    int32_t id = (int32_t)fint(r, "id", -1);
    kf_md_broker *b = broker_checked(im, id, fint(r, "epoch", -1), key == KF_MD_FENCE_BROKER ? "fence" : "unfence",
                                     why);
    if (!b)
        return MD_NOT_APPLIED;
    b->fenced = key == KF_MD_FENCE_BROKER;
    return MD_APPLIED;
}

/* A BrokerRegistrationChangeRecord whose field (Kafka's name for it: java)
 * holds a value Kafka does not know: the replay throws, naming the record by
 * its toString (here shortened). */
static md_apply unknown_change_value(const kf_kraft_broker_change *r, const char *field, const char *java, int v,
                                     md_why *why)
{
    md_set_msg(why, "broker %d: unknown value %lld for %s", (int)r->broker_id, (long long)v, field);
    md_set_thrown(why, "java.lang.IllegalStateException",
                  "Unable to replay BrokerRegistrationChangeRecord(brokerId=%d, brokerEpoch=%lld, ...): unknown "
                  "value for %s field: %d",
                  (int)r->broker_id, (long long)r->broker_epoch, java, v);
    return MD_NOT_APPLIED;
}

md_apply md_broker_change(md_image *im, const kf_kraft_broker_change *r, md_why *why)
{
    int32_t id = r->broker_id;
    kf_md_broker *b = broker_checked(im, id, r->broker_epoch, "change", why);
    if (!b)
        return MD_NOT_APPLIED;
    int fenced = r->fenced, cs = r->in_controlled_shutdown;
    if (fenced != 0 && fenced != 1 && fenced != -1)
        return unknown_change_value(r, "fenced", "fenced", fenced, why);
    if (cs != 0 && cs != 1)
        return unknown_change_value(r, "in_controlled_shutdown", "inControlledShutdown", cs, why);
    if (r->log_dirs.present && r->log_dirs.n && !md_uuids_from(&r->log_dirs, &b->log_dirs))
        return nomem(why);
    if (r->cordoned_log_dirs.present) {
        if (!md_uuids_from(&r->cordoned_log_dirs, &b->cordoned_log_dirs))
            return nomem(why);
        b->has_cordoned = true;
    }
    if (fenced)
        b->fenced = fenced == 1;
    if (cs == 1)
        b->in_controlled_shutdown = true;
    return MD_APPLIED;
}

md_apply md_register_controller(md_image *im, md_fields *r, md_why *why)
{
    kf_md_controller *c = calloc(1, sizeof *c);
    if (!c)
        return nomem(why);
    c->id = (int32_t)fint(r, "controller_id", -1);
    const uint8_t *inc = fuuid(r, "incarnation_id");
    if (inc)
        memcpy(c->incarnation_id, inc, 16);
    c->zk_migration_ready = fint(r, "zk_migration_ready", 0) != 0;
    bool nm = false;
    c->listeners = structs_from(r->t, fld(r, "end_points"), sizeof *c->listeners, listener_read, &c->nlisteners, &nm);
    c->features = structs_from(r->t, fld(r, "features"), sizeof *c->features, range_read, &c->nfeatures, &nm);
    return put_registered(&im->controllers, c->id, c, !nm, (void (*)(void *))md_controller_free, why);
}

md_apply md_unregister(htab *h, int32_t id, void (*fn)(void *))
{
    uint8_t k[4];
    fn(htab_del(h, k, key_i32(k, id)));
    return MD_APPLIED;
}

md_apply md_feature_record(md_image *im, md_fields *r, md_why *why)
{
    const kf_dnode *name = fld(r, "name");
    if (!name || name->kind != KF_V_STRING)
        return MD_NOT_APPLIED;
    /* 3.0-3.2 layout: Min/MaxFeatureLevel; the finalized level is the max */
    int64_t level = fint(r, "feature_level", fint(r, "max_feature_level", 0));
    if (str_eq(name, "metadata.version")) {
        im->has_mv = true;
        im->mv = (int16_t)level;
        return MD_APPLIED;
    }
    if (str_eq(name, "kraft.version"))
        return MD_APPLIED; /* KAFKA-18979: ignored; kraft.version comes from KRaftVersionRecord */
    if (level == 0) {
        md_feature_free(htab_del(&im->features, name->p, name->len));
        return MD_APPLIED;
    }
    kf_md_feature *f = calloc(1, sizeof *f);
    if (!f || !(f->name = md_dupn(name->p, name->len))) {
        free(f);
        return nomem(why);
    }
    f->level = (int16_t)level;
    return md_put(&im->features, name->p, name->len, f, (void (*)(void *))md_feature_free) ? MD_APPLIED
                                                                                      : nomem(why);
}

/* ProducerIdsRecord: the next producer id block (and, from the log, the
 * broker that asked for it). */
md_apply md_producer_ids_record(md_image *im, md_fields *r, bool from_snapshot)
{
    im->next_producer_id = fint(r, "next_producer_id", -1);
    im->pid_broker_id = from_snapshot ? -1 : (int32_t)fint(r, "broker_id", -1);
    im->pid_broker_epoch = from_snapshot ? -1 : fint(r, "broker_epoch", -1);
    return MD_APPLIED;
}
