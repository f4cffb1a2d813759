/* dtree_json.h: writing decoded coordinator records as JSON (dtree_json.c). */
#ifndef KFSCK_CLI_DTREE_JSON_H
#define KFSCK_CLI_DTREE_JSON_H

#include <stdbool.h>

#include "cli/out.h"
#include "kfsck/sys/coord.h"

/* The fields of struct node st, into the object being written. */
void dtree_json_fields(out *o, const kf_dtree *t, const kf_dnode *st);
/* A decoded ConsumerProtocolSubscription / Assignment in the shape of
 * kfsck(1)'s `groups`: {version, topics, owned_partitions, generation_id,
 * rack_id, user_data_b64} / {version, partitions, user_data_b64}, null for
 * fields the embedded version lacks. */
void dtree_json_consumer_protocol(out *o, const char *key, const kf_dtree *t, const kf_dnode *st, bool assignment);
/* One value under key (NULL inside arrays). */
void dtree_json_value(out *o, const char *key, const kf_dtree *t, const kf_dnode *n);
/* Field name of struct node st as the value of key: null when st is NULL or
 * has no such field. */
void dtree_json_field_or_null(out *o, const char *key, const kf_dtree *t, const kf_dnode *st, const char *name);
/* The fields of struct node st as an object under key (NULL inside arrays);
 * null when st is NULL (a record whose value was not decoded). */
void dtree_json_object(out *o, const char *key, const kf_dtree *t, const kf_dnode *st);

#endif
