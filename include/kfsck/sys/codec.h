/* codec.h: decompression of batch payloads for every codec Kafka writes.
 * gzip (zlib, concatenated members accepted), snappy (raw blocks and the
 * xerial framing of Java clients), lz4 (frame format, including the pre-KIP-57
 * broken header checksum of magic-0 wrappers), zstd (streaming frames).
 * Output never grows past the caller's cap. */
#ifndef KFSCK_CODEC_H
#define KFSCK_CODEC_H

#include <stddef.h>

#include "kfsck/common.h"
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { KF_CODEC_NONE = 0, KF_CODEC_GZIP = 1, KF_CODEC_SNAPPY = 2, KF_CODEC_LZ4 = 3, KF_CODEC_ZSTD = 4 };

/* "none", "gzip", "snappy", "lz4", "zstd", or "unknown". */
const char *kf_codec_name(int codec);

/* A growable byte buffer, reused across batches so steady-state decoding
 * allocates nothing. Zero-initialise; release with kf_buf_free. */
typedef struct kf_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
} kf_buf;

void kf_buf_free(kf_buf *b);
/* Make room for at least `need` bytes in total; returns KF_OK or KF_ERR_NOMEM. */
int kf_buf_reserve(kf_buf *b, size_t need);

/* Decompress `in` (inlen bytes) written with `codec` into out (out->len is set;
 * previous contents are discarded). `magic` is the batch's magic byte: for lz4
 * with magic 0 the frame header checksum is ignored (Kafka < 0.10 computed it
 * over the magic bytes too); for magic 1/2 either the correct or the broken
 * checksum is accepted. Output larger than max_out fails with KF_ERR_TOO_BIG.
 * Returns a kf_err; on failure the last error (kf_error_last) holds a
 * one-line reason naming the codec. */
int kf_decompress(int codec, int magic, const uint8_t *in, size_t inlen, kf_buf *out, size_t max_out);

/* libsnappy is loaded when the first snappy batch needs it, not at
 * start-up (it is C++: loading it and libstdc++ was most of a run's
 * start-up). NULL while every library the process needed has loaded;
 * else one line saying which could not be and why. Once set it stays:
 * snappy batches then fail with KF_ERR_UNSUPPORTED (reported as
 * decompress_error), which is a fault of the installation, not damage in
 * the data: kf_out_commit and kf_outdir_commit refuse to write the run's
 * outputs, and a caller should not trust a run that ended with this set
 * (kfsck exits 3). */
const char *kf_codec_load_error(void);

#ifdef __cplusplus
}
#endif

#endif
