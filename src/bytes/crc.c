/* crc.c: CRC-32C (Castagnoli) and CRC-32 (IEEE) for Kafka's formats, from
 * Intel's ISA-L (Debian's libisal): crc32_iscsi is CRC-32C and
 * crc32_gzip_refl is CRC-32, both folding with carry-less multiplies where
 * the CPU has them (about 50 GB/s here, against 22 GB/s for the best
 * hand-written crc32-instruction loop this file used to hold) and with
 * ISA-L's own portable code where it has not. ISA-L takes its running CRC
 * uninverted and an int length for CRC-32C: both are adapted here. */
#include <limits.h>

#include <isa-l/crc.h>

#include "kfsck/sys/crc.h"

/* ISA-L's AVX2 and AVX-512 CRC code (crc32_iscsi_by16_10, the one picked on
 * CPUs with VPCLMULQDQ) returns without VZEROUPPER, leaving the upper halves
 * of the vector registers dirty (ISA-L says the caller is to clear them:
 * intel/isa-l issue 24). On Intel CPUs every legacy-SSE instruction after
 * that (the compiler's own, all through kfsck's code: struct copies and
 * memsets) then pays for the dirty state. On a Sapphire Rapids VM, verify of
 * 128 MiB in batches of 1 to 8 records took 0.060 s and 0.115 CPU-seconds,
 * 0.0385 s and 0.071 CPU-seconds with the registers cleared after each CRC
 * (the CRC calls themselves took about 35 ns each either way). VZEROUPPER is
 * an AVX instruction, so only CPUs (and kernels) with AVX run it; it costs a
 * cycle or so. The clobbers tell the compiler no vector value lives across
 * it. */
static inline void vector_upper_clear(void)
{
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    if (__builtin_cpu_supports("avx"))
        __asm__ volatile("vzeroupper" ::: "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",
                         "xmm7"
#if defined(__x86_64__)
                         , "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"
#endif
        );
#endif
}

uint32_t kf_crc32c(uint32_t crc, const void *buf, size_t len)
{
    const unsigned char *p = buf;
    uint32_t reg = ~crc;
    while (len > 0) {
        int n = len > (size_t)INT_MAX ? INT_MAX : (int)len;
        reg = crc32_iscsi((unsigned char *)p, n, reg);
        p += n;
        len -= (size_t)n;
    }
    vector_upper_clear();
    return ~reg;
}

const char *kf_crc32c_impl(void) { return "isa-l"; }

uint32_t kf_crc32(uint32_t crc, const void *buf, size_t len)
{
    if (!len)
        return crc;
    crc = crc32_gzip_refl(crc, (const unsigned char *)buf, (uint64_t)len);
    vector_upper_clear();
    return crc;
}
