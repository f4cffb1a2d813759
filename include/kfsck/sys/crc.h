/* crc.h: the two checksums Kafka's formats use: CRC-32C (Castagnoli) for
 * magic-2 batches and producer snapshots, CRC-32 (IEEE) for magic 0/1
 * messages. Both come from Intel's ISA-L, which picks the fastest code the
 * CPU allows at run time. */
#ifndef KFSCK_CRC_H
#define KFSCK_CRC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Running CRC-32C: start with crc = 0; kf_crc32c(kf_crc32c(0, a, n), b, m)
 * equals the CRC of a||b. Matches java.util.zip.CRC32C. */
uint32_t kf_crc32c(uint32_t crc, const void *buf, size_t len);
/* Where the CRCs come from ("isa-l"), for --version. */
const char *kf_crc32c_impl(void);

/* Running CRC-32 (IEEE, java.util.zip.CRC32), start with crc = 0. */
uint32_t kf_crc32(uint32_t crc, const void *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
