/* decoder.h: which decoder the records of a segment or snapshot file take,
 * judged by its name: the internal topics by the partition directory's
 * topic name, KRaft snapshots and bootstrap.checkpoint by the file name,
 * Connect offsets topics by their usual names. `dump --decode auto` asks
 * this. */
#ifndef KFSCK_DECODER_H
#define KFSCK_DECODER_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kf_decoder {
    KF_DECODE_NONE = 0,     /* plain records */
    KF_DECODE_OFFSETS,      /* __consumer_offsets */
    KF_DECODE_TXN,          /* __transaction_state */
    KF_DECODE_CONNECT,      /* a Connect offsets topic (connect-offsets, mm2-offsets.*, ...) */
    KF_DECODE_METADATA,     /* __cluster_metadata, KRaft snapshots, bootstrap.checkpoint */
    KF_DECODE_SHARE,        /* __share_group_state */
    KF_DECODE_REMOTE,       /* __remote_log_metadata */
} kf_decoder;

/* The decoder for the file at path into *d. KF_OK or KF_ERR_NOMEM. */
int kf_decoder_for_path(const char *path, kf_decoder *d);

#ifdef __cplusplus
}
#endif

#endif
