/* crc.c: CRC-32C (Castagnoli) and CRC-32 (IEEE) for Kafka's formats.
 *
 * CRC-32C is chosen once at run time: the SSE4.2 crc32 instruction on x86_64,
 * the ARMv8 CRC32C instructions on aarch64, else a portable slicing-by-8 table.
 * The instruction versions run three independent CRC streams over adjacent
 * blocks (the instruction's latency is about three times its throughput, so
 * one stream leaves the unit idle two cycles out of three) and then join them
 * with "shift by n zero bytes" tables: the CRC register update is linear, so
 * crc(A||B) = shift_|B|(crc(A)) ^ crc0(B), where crc0 starts from a zero
 * register. Only compiler target attributes are used, never a global -m flag,
 * so the binary runs on every CPU of its architecture.
 *
 * CRC-32 (IEEE) for magic 0/1 messages is zlib's crc32(). */
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <zlib.h>

#include "kfsck/crc.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KF_CRC_X86 1
#include <nmmintrin.h>
#elif defined(__aarch64__) && defined(__linux__) && (defined(__GNUC__) || defined(__clang__))
#define KF_CRC_ARM 1
#include <arm_acle.h>
#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7) /* <asm/hwcap.h>; glibc's <sys/auxv.h> usually defines it */
#endif
#endif

#define CRC32C_POLY 0x82f63b78u /* reflected Castagnoli polynomial */

/* Block lengths of the three-stream loops: LONG for the bulk of big buffers,
 * SHORT for what is left (and for batches of up to 192 KB). Both multiples of
 * 8, LONG / SHORT a power of two. Measured on an AMD EPYC reading from DRAM:
 * three streams 4-16 KB apart defeat the hardware prefetcher (~15 GB/s), 64 KB
 * apart they do not (~22 GB/s); 256 B apart is one sequential stream. */
#define LONG_BLOCK 65536
#define SHORT_BLOCK 256
_Static_assert((LONG_BLOCK / SHORT_BLOCK & (LONG_BLOCK / SHORT_BLOCK - 1)) == 0, "LONG/SHORT must be 2^k");

static uint32_t crc_table[8][256];          /* slicing-by-8 */
#if defined(KF_CRC_X86) || defined(KF_CRC_ARM)
static uint32_t shift_long[4][256];         /* register -> register after LONG_BLOCK zero bytes */
static uint32_t shift_short[4][256];        /* ... after SHORT_BLOCK zero bytes */
#endif

typedef uint32_t (*crc_fn)(uint32_t reg, const uint8_t *p, size_t len);

static crc_fn crc_impl;
static const char *crc_impl_name = "portable";
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

/* ---- portable slicing-by-8 ---------------------------------------------- */

/* Works on the raw register (pre/post inversion done by the callers). Loads are
 * assembled byte by byte so the code is right on any endianness; compilers turn
 * them into single loads on little-endian machines. */
static uint32_t crc32c_sw(uint32_t reg, const uint8_t *p, size_t len)
{
    while (len && ((uintptr_t)p & 7)) {
        reg = crc_table[0][(reg ^ *p++) & 0xff] ^ (reg >> 8);
        len--;
    }
    while (len >= 8) {
        uint32_t lo = reg ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
        uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
        reg = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^ crc_table[5][(lo >> 16) & 0xff] ^
              crc_table[4][lo >> 24] ^ crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
              crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
        p += 8;
        len -= 8;
    }
    while (len--)
        reg = crc_table[0][(reg ^ *p++) & 0xff] ^ (reg >> 8);
    return reg;
}

/* ---- shift-by-zeros tables ------------------------------------------------ */

#if defined(KF_CRC_X86) || defined(KF_CRC_ARM)
/* The "feed n zero bytes" map is linear over GF(2), so it is a 32x32 bit
 * matrix, kept as the images of the 32 basis bits. */
static uint32_t gf2_apply(const uint32_t m[32], uint32_t v)
{
    uint32_t r = 0;
    for (int k = 0; v; k++, v >>= 1)
        if (v & 1)
            r ^= m[k];
    return r;
}

/* Tabulates the map a byte of the register at a time: shift(t, reg) below. */
static void tabulate(uint32_t t[4][256], const uint32_t m[32])
{
    for (int j = 0; j < 4; j++)
        for (uint32_t b = 0; b < 256; b++)
            t[j][b] = gf2_apply(m, b << (8 * j));
}

/* shift_short by stepping SHORT_BLOCK zero bytes through the byte table, then
 * shift_long by squaring the matrix (LONG_BLOCK / SHORT_BLOCK is a power of 2). */
static void build_shift_tables(void)
{
    uint32_t m[32], sq[32];
    for (int k = 0; k < 32; k++) {
        uint32_t r = (uint32_t)1 << k;
        for (int i = 0; i < SHORT_BLOCK; i++)
            r = crc_table[0][r & 0xff] ^ (r >> 8);
        m[k] = r;
    }
    tabulate(shift_short, m);
    for (size_t n = SHORT_BLOCK; n < LONG_BLOCK; n *= 2) {
        for (int k = 0; k < 32; k++)
            sq[k] = gf2_apply(m, m[k]);
        memcpy(m, sq, sizeof m);
    }
    tabulate(shift_long, m);
}

static inline uint32_t shift(const uint32_t t[4][256], uint32_t reg)
{
    return t[0][reg & 0xff] ^ t[1][(reg >> 8) & 0xff] ^ t[2][(reg >> 16) & 0xff] ^ t[3][reg >> 24];
}
#endif

/* ---- x86_64: SSE4.2 ------------------------------------------------------- */

#ifdef KF_CRC_X86
static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* One three-stream step per macro use: blocks of n bytes at p, p+n, p+2n. */
#define CRC3_X86(n, table)                                                                                   \
    while (len >= 3 * (size_t)(n)) {                                                                         \
        uint64_t c1 = 0, c2 = 0;                                                                             \
        const uint8_t *end = p + (n);                                                                        \
        do {                                                                                                 \
            c0 = _mm_crc32_u64(c0, load64(p));                                                               \
            c1 = _mm_crc32_u64(c1, load64(p + (n)));                                                         \
            c2 = _mm_crc32_u64(c2, load64(p + 2 * (n)));                                                     \
            p += 8;                                                                                          \
        } while (p < end);                                                                                   \
        c0 = shift(table, (uint32_t)c0) ^ (uint32_t)c1;                                                      \
        c0 = shift(table, (uint32_t)c0) ^ (uint32_t)c2;                                                      \
        p += 2 * (size_t)(n);                                                                                \
        len -= 3 * (size_t)(n);                                                                              \
    }

__attribute__((target("sse4.2"))) static uint32_t crc32c_sse42(uint32_t reg, const uint8_t *p, size_t len)
{
    uint64_t c0 = reg;
    while (len && ((uintptr_t)p & 7)) {
        c0 = _mm_crc32_u8((uint32_t)c0, *p++);
        len--;
    }
    CRC3_X86(LONG_BLOCK, shift_long)
    CRC3_X86(SHORT_BLOCK, shift_short)
    while (len >= 8) {
        c0 = _mm_crc32_u64(c0, load64(p));
        p += 8;
        len -= 8;
    }
    while (len--)
        c0 = _mm_crc32_u8((uint32_t)c0, *p++);
    return (uint32_t)c0;
}
#endif

/* ---- aarch64: ARMv8 CRC32 extension --------------------------------------- */

#ifdef KF_CRC_ARM
#if defined(__clang__)
#define KF_ARM_CRC_TARGET __attribute__((target("crc")))
#define KF_CRC32CD(c, v) __builtin_arm_crc32cd((c), (v))
#define KF_CRC32CB(c, v) __builtin_arm_crc32cb((c), (v))
#else
#define KF_ARM_CRC_TARGET __attribute__((target("+crc")))
#define KF_CRC32CD(c, v) __crc32cd((c), (v))
#define KF_CRC32CB(c, v) __crc32cb((c), (v))
#endif

static inline uint64_t load64le(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

#define CRC3_ARM(n, table)                                                                                   \
    while (len >= 3 * (size_t)(n)) {                                                                         \
        uint32_t c1 = 0, c2 = 0;                                                                             \
        const uint8_t *end = p + (n);                                                                        \
        do {                                                                                                 \
            c0 = KF_CRC32CD(c0, load64le(p));                                                                \
            c1 = KF_CRC32CD(c1, load64le(p + (n)));                                                          \
            c2 = KF_CRC32CD(c2, load64le(p + 2 * (n)));                                                      \
            p += 8;                                                                                          \
        } while (p < end);                                                                                   \
        c0 = shift(table, c0) ^ c1;                                                                          \
        c0 = shift(table, c0) ^ c2;                                                                          \
        p += 2 * (size_t)(n);                                                                                \
        len -= 3 * (size_t)(n);                                                                              \
    }

KF_ARM_CRC_TARGET static uint32_t crc32c_armv8(uint32_t reg, const uint8_t *p, size_t len)
{
    uint32_t c0 = reg;
    while (len && ((uintptr_t)p & 7)) {
        c0 = KF_CRC32CB(c0, *p++);
        len--;
    }
    CRC3_ARM(LONG_BLOCK, shift_long)
    CRC3_ARM(SHORT_BLOCK, shift_short)
    while (len >= 8) {
        c0 = KF_CRC32CD(c0, load64le(p));
        p += 8;
        len -= 8;
    }
    while (len--)
        c0 = KF_CRC32CB(c0, *p++);
    return c0;
}
#endif

/* ---- initialisation and dispatch ------------------------------------------ */

static void crc_init(void)
{
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ CRC32C_POLY : c >> 1;
        crc_table[0][n] = c;
    }
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = crc_table[0][n];
        for (int k = 1; k < 8; k++) {
            c = crc_table[0][c & 0xff] ^ (c >> 8);
            crc_table[k][n] = c;
        }
    }
    crc_impl = crc32c_sw;
    crc_impl_name = "portable";
#ifdef KF_CRC_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("sse4.2")) {
        build_shift_tables();
        crc_impl = crc32c_sse42;
        crc_impl_name = "sse4.2";
    }
#endif
#ifdef KF_CRC_ARM
    if (getauxval(AT_HWCAP) & HWCAP_CRC32) {
        build_shift_tables();
        crc_impl = crc32c_armv8;
        crc_impl_name = "armv8-crc";
    }
#endif
}

uint32_t kf_crc32c(uint32_t crc, const void *buf, size_t len)
{
    pthread_once(&crc_once, crc_init);
    if (len == 0)
        return crc;
    return ~crc_impl(~crc, buf, len);
}

uint32_t kf_crc32c_portable(uint32_t crc, const void *buf, size_t len)
{
    pthread_once(&crc_once, crc_init);
    if (len == 0)
        return crc;
    return ~crc32c_sw(~crc, buf, len);
}

const char *kf_crc32c_impl(void)
{
    pthread_once(&crc_once, crc_init);
    return crc_impl_name;
}

/* ---- CRC-32 (IEEE) -------------------------------------------------------- */

uint32_t kf_crc32(uint32_t crc, const void *buf, size_t len)
{
    const Bytef *p = buf;
    uLong c = crc;
    while (len > 0) {
        uInt n = len > UINT_MAX ? UINT_MAX : (uInt)len;
        c = crc32(c, p, n);
        p += n;
        len -= n;
    }
    return (uint32_t)c;
}
