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

/* The decoder of a topic's records, by its name. */
static kf_decoder decoder_of_topic(const char *topic)
{
    if (!strcmp(topic, "__consumer_offsets"))
        return KF_DECODE_OFFSETS;
    if (!strcmp(topic, "__transaction_state"))
        return KF_DECODE_TXN;
    if (!strcmp(topic, "__cluster_metadata"))
        return KF_DECODE_METADATA;
    if (!strcmp(topic, "__share_group_state"))
        return KF_DECODE_SHARE;
    if (!strcmp(topic, "__remote_log_metadata"))
        return KF_DECODE_REMOTE;
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
        return kf_error_set(KF_ERR_NOMEM, ENOMEM, NULL, "out of memory");
    char topic[256];
    int32_t part;
    *d = kf_parse_partition_dir(kf_path_base(dir), topic, sizeof topic, &part) ? decoder_of_topic(topic)
                                                                                 : KF_DECODE_NONE;
    free(dir);
    return KF_OK;
}
