/* dtree_json.c: decoded records (kf_dtree nodes) as JSON: a struct becomes
 * an object of its fields, an array an array; bytes fields are written as
 * base64 under "<name>_b64", uuids as Kafka prints them (22-character
 * URL-safe base64), strings as text. A node marked secret is written as the
 * string "<redacted>" (under the key it would have had) unless the output
 * was asked to show secrets. */
#include "cli/dtree_json.h"

#include <stdio.h>
#include <string.h>

static void value(out *o, const kf_dtree *t, const kf_dnode *n, const char *key)
{
    char k[96];
    if ((n->flags & KF_DNODE_SECRET) && !o->show_secrets && n->kind != KF_V_NULL) {
        if (key && n->kind == KF_V_BYTES) {
            snprintf(k, sizeof k, "%s_b64", key);
            key = k;
        }
        kf_jsonl_str(&o->w, key, KF_REDACTED);
        return;
    }
    switch (n->kind) {
    case KF_V_NULL: kf_jsonl_null(&o->w, key); break;
    case KF_V_INT: kf_jsonl_int(&o->w, key, n->i); break;
    case KF_V_BOOL: kf_jsonl_bool(&o->w, key, n->i != 0); break;
    case KF_V_FLOAT: kf_jsonl_double(&o->w, key, n->f); break;
    case KF_V_STRING: kf_jsonl_strn(&o->w, key, (const char *)n->p, n->len); break;
    case KF_V_BYTES:
        if (key) {
            snprintf(k, sizeof k, "%s_b64", key);
            kf_jsonl_b64(&o->w, k, n->p, n->len);
        } else {
            kf_jsonl_b64(&o->w, NULL, n->p, n->len);
        }
        break;
    case KF_V_UUID: {
        char id[23];
        kf_uuid_to_b64(n->p, id);
        kf_jsonl_str(&o->w, key, id);
        break;
    }
    case KF_V_STRUCT:
        kf_jsonl_obj_open(&o->w, key);
        dtree_json_fields(o, t, n);
        kf_jsonl_obj_close(&o->w);
        break;
    case KF_V_ARRAY:
        kf_jsonl_arr_open(&o->w, key);
        for (uint32_t c = n->first_child; c != KF_DNODE_NONE; c = t->nodes[c].next)
            value(o, t, &t->nodes[c], NULL);
        kf_jsonl_arr_close(&o->w);
        break;
    }
}

void dtree_json_field_or_null(out *o, const char *key, const kf_dtree *t, const kf_dnode *st, const char *name)
{
    const kf_dnode *f = st ? kf_dnode_field(t, st, name) : NULL;
    if (f)
        value(o, t, f, key);
    else
        kf_jsonl_null(&o->w, key);
}

static void user_data(out *o, const kf_dtree *t, const kf_dnode *st)
{
    const kf_dnode *u = kf_dnode_field(t, st, "user_data");
    if (u && u->kind == KF_V_BYTES)
        kf_jsonl_b64(&o->w, "user_data_b64", u->p, u->len);
    else
        kf_jsonl_null(&o->w, "user_data_b64");
}

void dtree_json_consumer_protocol(out *o, const char *key, const kf_dtree *t, const kf_dnode *st, bool assignment)
{
    kf_jsonl_obj_open(&o->w, key);
    dtree_json_field_or_null(o, "version", t, st, "version");
    if (assignment) {
        dtree_json_field_or_null(o, "partitions", t, st, "assigned_partitions");
    } else {
        dtree_json_field_or_null(o, "topics", t, st, "topics");
        dtree_json_field_or_null(o, "owned_partitions", t, st, "owned_partitions");
        dtree_json_field_or_null(o, "generation_id", t, st, "generation_id");
        dtree_json_field_or_null(o, "rack_id", t, st, "rack_id");
    }
    user_data(o, t, st);
    kf_jsonl_obj_close(&o->w);
}

void dtree_json_fields(out *o, const kf_dtree *t, const kf_dnode *st)
{
    for (uint32_t c = st->first_child; c != KF_DNODE_NONE; c = t->nodes[c].next) {
        const kf_dnode *f = &t->nodes[c];
        const char *name = f->name ? f->name : "?";
        /* classic members of protocol type consumer: subscription/assignment
         * decoded (as `groups` prints them); their raw bytes are left out */
        bool sub = !strcmp(name, "subscription"), asg = !strcmp(name, "assignment");
        if ((sub || asg) && f->kind == KF_V_STRUCT) {
            dtree_json_consumer_protocol(o, name, t, f, asg);
            continue;
        }
        if (!strcmp(name, "subscription_bytes") || !strcmp(name, "assignment_bytes"))
            continue;
        value(o, t, f, name);
    }
}

void dtree_json_value(out *o, const char *key, const kf_dtree *t, const kf_dnode *n) { value(o, t, n, key); }

void dtree_json_object(out *o, const char *key, const kf_dtree *t, const kf_dnode *st)
{
    if (!st) {
        kf_jsonl_null(&o->w, key);
        return;
    }
    kf_jsonl_obj_open(&o->w, key);
    dtree_json_fields(o, t, st);
    kf_jsonl_obj_close(&o->w);
}
