/* decoder.c: the decoder a file's records take, by its name and its
 * partition directory's (include/kfsck/sys/decoder.h). */
#include "kfsck/sys/decoder.h"
#include "bytes/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kfsck/common.h"
#include "kfsck/sys/dirs.h"
#include "kfsck/sys/names.h"

/* The internal topics whose records have a decoder of their own. */
static const struct {
    const char *topic;
    kf_decoder decoder;
} internal_topics[] = {
    {"__consumer_offsets", KF_DECODE_OFFSETS},   {"__transaction_state", KF_DECODE_TXN},
    {"__cluster_metadata", KF_DECODE_METADATA},  {"__share_group_state", KF_DECODE_SHARE},
    {"__remote_log_metadata", KF_DECODE_REMOTE},
};

/* The decoder of a topic's records, by its name. */
static kf_decoder decoder_of_topic(const char *topic)
{
    for (size_t i = 0; i < sizeof internal_topics / sizeof internal_topics[0]; i++)
        if (!strcmp(topic, internal_topics[i].topic))
            return internal_topics[i].decoder;
    if (strstr(topic, "offset") && topic[0] != '_')
        return KF_DECODE_CONNECT; /* connect-offsets, docker-connect-offsets, mm2-offsets.* */
    return KF_DECODE_NONE;
}

int kf_decoder_for_path(const char *path, kf_decoder *d)
{
    kf_file_kind fk = kf_classify_name(kf_path_base(path)).kind;
    if (fk == KF_FILE_KRAFT_CHECKPOINT || fk == KF_FILE_BOOTSTRAP_CHECKPOINT) {
        *d = KF_DECODE_METADATA;
        return KF_OK;
    }
    char *dir = kf_path_dir(path);
    if (!dir)
        return kf_error_nomem();
    char topic[256];
    int32_t part;
    *d = kf_parse_partition_dir(kf_path_base(dir), topic, sizeof topic, &part) ? decoder_of_topic(topic)
                                                                                 : KF_DECODE_NONE;
    free(dir);
    return KF_OK;
}
