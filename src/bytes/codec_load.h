/* codec_load.h: the codec library kfsck loads only when a batch needs it
 * (libsnappy; see codec_load.c for why). */
#ifndef KFSCK_BYTES_CODEC_LOAD_H
#define KFSCK_BYTES_CODEC_LOAD_H

#include <stddef.h>

#include <snappy-c.h>

/* libsnappy's two functions the decoder calls. */
typedef struct kf_snappy_fns {
    snappy_status (*uncompressed_length)(const char *compressed, size_t compressed_length, size_t *result);
    snappy_status (*uncompress)(const char *compressed, size_t compressed_length, char *uncompressed,
                                size_t *uncompressed_length);
} kf_snappy_fns;

/* The functions, loaded on the first call (once per process, any thread);
 * NULL when the library cannot be loaded, with the reason in the calling
 * thread's last error (KF_ERR_UNSUPPORTED) and in kf_codec_load_error. */
const kf_snappy_fns *kf_snappy_load(void);

#endif
