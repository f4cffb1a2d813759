/* fuzz_codec.c: fuzz target for kf_decompress. The first input byte picks the
 * codec (byte % 5: none, gzip, snappy, lz4, zstd) and the batch magic
 * ((byte / 5) % 3, which matters for lz4's header checksum); the rest is
 * decompressed with a 1 MiB cap. Any crash, sanitizer report, hang or
 * allocation past the cap is a bug; the result itself is ignored, except that
 * a success must respect the cap.
 *
 * Built as build/fuzz/replay_codec by `make` (see replay.c), and as a
 * libFuzzer binary by `make fuzz`:
 *   build/fuzz-lf/fuzz_codec -max_len=65536 tests/fuzz/corpus/codec
 * Seed corpus: tests/fuzz/corpus/codec/ (one small valid input per codec). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "kfsck/kfsck.h"

#define FUZZ_MAX_OUT ((size_t)1 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int codec = data[0] % 5;
    int magic = (data[0] / 5) % 3;
    kf_buf out = {0};
    int rc = kf_decompress(codec, magic, data + 1, size - 1, &out, FUZZ_MAX_OUT);
    if (out.len > FUZZ_MAX_OUT || out.cap > FUZZ_MAX_OUT || (rc == KF_OK && out.len > 0 && !out.data))
        abort();
    /* read every output byte: under ASan, a len past the allocation shows up */
    volatile uint8_t sink = 0;
    for (size_t i = 0; i < out.len; i++)
        sink ^= out.data[i];
    (void)sink;
    kf_buf_free(&out);
    return 0;
}
