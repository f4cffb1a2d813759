/* fuzz_checkpoint.c: fuzz target for the text-file parsers (src/format/checkpoint.c).
 * The first input byte picks the parser — offset checkpoint, leader-epoch
 * checkpoint, partition.metadata, meta.properties, or the Uuid decoder — and
 * the rest is the file. Entries and problems are consumed (the topic string is
 * read to its end). Any crash, sanitizer report or hang is a bug; the
 * results themselves are ignored.
 *
 * Built as build/fuzz/replay_checkpoint by `make` (see replay.c), and as a
 * libFuzzer binary by `make fuzz`:
 *   build/fuzz-lf/fuzz_checkpoint -max_len=4096 tests/fuzz/corpus/checkpoint
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kfsck/kfsck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static void on_entry(void *ctx, const kf_checkpoint_entry *e)
{
    (void)ctx;
    sink += (size_t)(uint64_t)e->offset + (e->topic ? strlen(e->topic) : 0);
}

static void on_problem(void *ctx, const kf_problem *p)
{
    (void)ctx;
    sink += strlen(p->message) + p->position;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t kind = data[0] % 5;
    data++;
    size--;
    const uint8_t *d = size ? data : NULL;
    switch (kind) {
    case 0:
    case 1: {
        int32_t version = 0;
        (void)kf_checkpoint_parse(d, size, kind == 0 ? KF_CHECKPOINT_OFFSETS : KF_CHECKPOINT_LEADER_EPOCH, &version, on_entry,
                                  NULL, on_problem, NULL);
        break;
    }
    case 2: {
        kf_partition_metadata pm;
        int rc = kf_partition_metadata_parse(d, size, &pm);
        sink += (rc != KF_OK ? strlen(kf_error_last()->message) : 0) + strlen(pm.topic_id_b64);
        break;
    }
    case 3: {
        kf_meta_properties mp;
        int rc = kf_meta_properties_parse(d, size, &mp);
        sink += (rc != KF_OK ? strlen(kf_error_last()->message) : 0) + strlen(mp.cluster_id) + strlen(mp.directory_id);
        break;
    }
    default: {
        uint8_t u[16];
        char s[23];
        if (kf_uuid_from_b64((const char *)d, size, u) == 0) {
            kf_uuid_to_b64(u, s);
            sink += strlen(s);
        }
        break;
    }
    }
    return 0;
}
