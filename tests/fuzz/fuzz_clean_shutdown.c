/* fuzz_clean_shutdown.c: fuzz target for the .kafka_cleanshutdown reader
 * (src/format/clean_shutdown.c, KIP-966's JSON read with Jansson). The
 * input bytes are the whole file. Any crash, sanitizer report or hang is a
 * bug; the result itself is ignored.
 *
 * Built as build/fuzz/replay_clean_shutdown by `make` (see replay.c), and as
 * a libFuzzer binary by `make fuzz`:
 *   build/fuzz-lf/fuzz_clean_shutdown -max_len=1024 tests/fuzz/corpus/clean_shutdown
 */
#include <stddef.h>
#include <stdint.h>

#include "kfsck/kfsck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kf_clean_shutdown cs;
    volatile int64_t sink = 0;
    (void)kf_clean_shutdown_parse(size ? data : NULL, size, &cs);
    sink += cs.has_broker_epoch ? cs.broker_epoch : cs.version;
    return 0;
}
