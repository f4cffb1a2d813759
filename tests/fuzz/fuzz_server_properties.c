/* fuzz_server_properties.c: fuzz target for the Java properties reader
 * (src/format/server_properties.c) that `kfsck predict --config` reads a
 * broker's server.properties with. The input bytes are the whole file;
 * every key and value handed back is touched. Any crash, sanitizer report or
 * hang is a bug; the result itself is ignored.
 *
 * Built as build/fuzz/replay_server_properties by `make` (see replay.c), and
 * as a libFuzzer binary by `make fuzz`:
 *   build/fuzz-lf/fuzz_server_properties -max_len=4096 tests/fuzz/corpus/server_properties
 */
#include <stddef.h>
#include <stdint.h>

#include "kfsck/kfsck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int touch(void *ctx, const char *key, size_t klen, const char *value, size_t vlen)
{
    volatile uint64_t *sink = ctx;
    for (size_t i = 0; i < klen; i++)
        *sink += (uint8_t)key[i];
    for (size_t i = 0; i < vlen; i++)
        *sink += (uint8_t)value[i];
    return KF_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    volatile uint64_t sink = 0;
    uint64_t line = 0;
    (void)kf_properties_parse(size ? data : NULL, size, touch, (void *)&sink, &line);
    return 0;
}
