/* topic_names.h: which topic a topic id names and which id a topic name
 * has, with one precedence for every command that needs it (groups names
 * the topics of KIP-848 assignments, offsets gives commits without one
 * their topic's id):
 *   1. the cluster's KRaft metadata log among the PATHs (its image at the
 *      end of the log, built silently: its damage is `metadata`'s to
 *      report);
 *   2. the partition.metadata files of the partition directories among the
 *      inputs (the directory names the topic, the file its id).
 * The first source to tie an id to a name wins. A table may lie over
 * another (kf_topic_names_new): lookups try it first, so what one group's
 * own records say wins for that group's members (kf_group_topic_names in
 * groups.h). */
#ifndef KFSCK_TOPIC_NAMES_H
#define KFSCK_TOPIC_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/metadata.h"
#include "kfsck/partition.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kf_topic_names kf_topic_names;

/* The table of the cluster: the KRaft metadata log among paths, then the
 * partition.metadata files of in's partition directories. KF_OK with *out
 * set, or KF_ERR_NOMEM with *out NULL. */
int kf_topic_names_build(kf_topic_names **out, char *const *paths, size_t n, const kf_inputs *in,
                         size_t max_batch_bytes);

/* An empty table lying over under (NULL: none; it must outlive the new
 * table). KF_OK or KF_ERR_NOMEM. */
int kf_topic_names_new(kf_topic_names **out, const kf_topic_names *under);

/* Ties id to name (len bytes): the id's name unless the table already
 * names it, the name's id unless the table already has one for it (its own
 * entries, not those of the table under it). KF_OK or KF_ERR_NOMEM. */
int kf_topic_names_add(kf_topic_names *t, const uint8_t id[16], const char *name, size_t len);

/* The name id has (NULL: none), and the id name has (false: none). */
const char *kf_topic_names_name(const kf_topic_names *t, const uint8_t id[16]);
bool kf_topic_names_id(const kf_topic_names *t, const char *name, uint8_t id[16]);

void kf_topic_names_free(kf_topic_names *t);

/* The image of the KRaft metadata log among paths (kf_kraft_inputs_collect,
 * then kf_metadata_build), silently; *out NULL when there is none. KF_OK
 * or KF_ERR_NOMEM. Free with kf_metadata_free. */
int kf_metadata_of_paths(kf_metadata **out, char *const *paths, size_t n, size_t max_batch_bytes);

#ifdef __cplusplus
}
#endif

#endif
