/* image_check.c: a topic partition's directory against the cluster image
 * the KRaft metadata log describes (kf_kraft_check_partition,
 * kraft_check.h): its partition.metadata topic id against the id the log
 * gives the topic, as the broker checks it while loading the log. Kept
 * apart from kraft_check.c, whose checks the image itself is built on. */
#include "bytes/report.h"
#include "kfsck/kraft_check.h"

#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
#include "kfsck/sys/checkpoint.h"
#include "kfsck/sys/dirs.h"
#include "kfsck/sys/file.h"
#include "kfsck/metadata.h"

void kf_kraft_check_partition(const kf_metadata *m, const char *topic, int32_t partition, const char *dir,
                              kf_problem_fn fn, void *ctx)
{
    if (!m || !topic || !strcmp(topic, "__cluster_metadata"))
        return;
    char *pm = kf_path_join(dir, "partition.metadata");
    if (!pm)
        return;
    kf_partition_metadata md;
    if (kf_partition_metadata_read(pm, &md) != KF_OK) {
        free(pm);
        return; /* reported as unreadable or metadata_invalid by the file's own check */
    }
    const kf_md_topic *by_name = kf_metadata_topic_by_name(m, topic);
    const kf_md_topic *by_id = kf_metadata_topic_by_id(m, md.topic_id);
    if (by_name && memcmp(by_name->id, md.topic_id, 16) != 0) {
        char want[23];
        kf_uuid_to_b64(by_name->id, want);
        kf_report_in(fn, ctx, pm, KF_P_TOPIC_ID_MISMATCH, KF_SEV_ERROR, 0, false, 0,
                "%s-%d has topic id %s but the metadata log gives topic %s the id %s%s: the broker fails this "
                "partition (InconsistentTopicIdException)",
                topic, (int)partition, md.topic_id_b64, topic, want,
                by_id ? " (its id belongs to another topic there)" : "");
    } else if (!by_name && by_id) {
        kf_report_in(fn, ctx, pm, KF_P_TOPIC_ID_MISMATCH, KF_SEV_ERROR, 0, false, 0,
                "%s-%d has topic id %s, which the metadata log gives to topic %s, and the log knows no topic %s",
                topic, (int)partition, md.topic_id_b64, by_id->name, topic);
    } else if (!by_id) {
        kf_report_in(fn, ctx, pm, KF_P_STRAY_PARTITION, KF_SEV_WARNING, 0, false, 0,
                "%s-%d has topic id %s, which the metadata log does not know (a deleted topic?): Kafka renames such "
                "a directory -stray and stops serving it",
                topic, (int)partition, md.topic_id_b64);
    }
    free(pm);
}
