/* fuzz_dump.c: fuzz target for the dump job's readers of the files that are
 * not segments (src/jobs/dump/dump_entries.c), which read each file in
 * pieces, and for its segment dump with records and damaged stretches
 * (dump.c, dump_records.c). The first input byte picks the file's name
 * (an offset index, time index, .txnindex, producer snapshot,
 * leader-epoch-checkpoint, recovery-point-offset-checkpoint,
 * partition.metadata, meta.properties, quorum-state, or a segment of
 * __consumer_offsets or of __cluster_metadata); the rest is the file,
 * written into a directory of this process's own and dumped with
 * kf_dump_paths. Checked: the entries dump hands on are those the readers
 * of the same bytes in memory give (kf_*_index_init, kf_producer_snapshot_parse,
 * kf_checkpoint_parse), in order, and a metadata file gives one entry,
 * parsed as kf_partition_metadata_parse says; nothing is left failed. Any
 * crash, sanitizer report or abort is a bug.
 *
 * Built as build/fuzz/replay_dump by `make` (see replay.c), and as a
 * libFuzzer binary by `make fuzz`:
 *   build/fuzz-lf/fuzz_dump -max_len=4096 tests/fuzz/corpus/dump
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "kfsck/kfsck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Inputs past this are left alone: replay.c runs every target over the
 * fixtures, some of them segments of megabytes. */
#define MAX_INPUT ((size_t)1 << 20)

static const char *const names[] = {
    "00000000000000000100.index",
    "00000000000000000100.timeindex",
    "00000000000000000100.txnindex",
    "00000000000000000100.snapshot",
    "leader-epoch-checkpoint",
    "recovery-point-offset-checkpoint",
    "partition.metadata",
    "meta.properties",
    "quorum-state",
    "00000000000000000000.log",
    "00000000000000000000.log",
};
#define NAMES (sizeof names / sizeof names[0])

static char dir[256], files[NAMES][320];

static void remove_files(void)
{
    for (size_t i = 0; i < NAMES; i++)
        unlink(files[i]);
    char sub[300];
    snprintf(sub, sizeof sub, "%s/__consumer_offsets-0", dir);
    rmdir(sub);
    snprintf(sub, sizeof sub, "%s/__cluster_metadata-0", dir);
    rmdir(sub);
    rmdir(dir);
}

/* The process's own directory and the file paths in it, made once. */
static void setup(void)
{
    if (dir[0])
        return;
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/kfsck_fuzz_dump.XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(dir))
        abort();
    char sub[300];
    snprintf(sub, sizeof sub, "%s/__consumer_offsets-0", dir);
    if (mkdir(sub, 0700) != 0)
        abort();
    snprintf(sub, sizeof sub, "%s/__cluster_metadata-0", dir);
    if (mkdir(sub, 0700) != 0)
        abort();
    for (size_t i = 0; i < NAMES; i++)
        snprintf(files[i], sizeof files[i], "%s/%s%s", dir,
                 i == NAMES - 2 ? "__consumer_offsets-0/" : i == NAMES - 1 ? "__cluster_metadata-0/" : "", names[i]);
    atexit(remove_files);
}

/* What dump handed on: entries of each kind and a hash of their values in order. */
typedef struct seen {
    uint64_t hash, n, files, metadata, batches, records;
    bool parsed;
} seen;

static void put(seen *s, const void *p, size_t n)
{
    fuzz_hash(&s->hash, p, n);
}

static void checkpoint_values(seen *s, const kf_checkpoint_entry *c)
{
    if (c->topic)
        put(s, c->topic, strlen(c->topic) + 1);
    put(s, &c->partition, sizeof c->partition);
    put(s, &c->epoch, sizeof c->epoch);
    put(s, &c->offset, sizeof c->offset);
    put(s, &c->position, sizeof c->position);
}

static void on_entry(void *ctx, const kf_dump_entry *e)
{
    seen *s = ctx;
    s->n += e->kind != KF_DUMP_SNAPSHOT && e->kind < KF_DUMP_PARTITION_METADATA;
    switch (e->kind) {
    case KF_DUMP_INDEX_ENTRY:
        put(s, &e->offset, sizeof e->offset);
        put(s, &e->position, sizeof e->position);
        break;
    case KF_DUMP_TIME_INDEX_ENTRY:
        put(s, &e->timestamp, sizeof e->timestamp);
        put(s, &e->offset, sizeof e->offset);
        break;
    case KF_DUMP_TXN_ENTRY:
        put(s, &e->txn.producer_id, sizeof e->txn.producer_id);
        put(s, &e->txn.first_offset, sizeof e->txn.first_offset);
        put(s, &e->txn.last_offset, sizeof e->txn.last_offset);
        put(s, &e->txn.last_stable_offset, sizeof e->txn.last_stable_offset);
        break;
    case KF_DUMP_SNAPSHOT:
        put(s, &e->snapshot->count, sizeof e->snapshot->count);
        break;
    case KF_DUMP_PRODUCER:
        put(s, &e->producer.producer_id, sizeof e->producer.producer_id);
        put(s, &e->producer.last_offset, sizeof e->producer.last_offset);
        break;
    case KF_DUMP_CHECKPOINT_ENTRY:
    case KF_DUMP_LEADER_EPOCH:
        checkpoint_values(s, e->checkpoint);
        break;
    case KF_DUMP_PARTITION_METADATA:
        s->parsed = e->parsed;
        s->metadata++;
        break;
    case KF_DUMP_META_PROPERTIES:
    case KF_DUMP_QUORUM_STATE:
        s->metadata++;
        break;
    }
}

static void on_file(void *ctx, const kf_dump_file *f)
{
    (void)f;
    ((seen *)ctx)->files++;
}

static int on_batch(void *ctx, const char *file, const kf_batch *b)
{
    (void)file;
    (void)b;
    ((seen *)ctx)->batches++;
    return 0;
}

static int on_record(void *ctx, const kf_dump_record *r)
{
    (void)r;
    ((seen *)ctx)->records++;
    return 0;
}

static void on_damaged(void *ctx, const kf_damaged *d, bool redact)
{
    (void)ctx;
    (void)d;
    (void)redact;
}

static void on_problem(void *ctx, const kf_problem *p)
{
    (void)ctx;
    if (!p->file || !p->code)
        abort();
}

static void on_path_error(void *ctx, const char *path, int err_no, const char *what)
{
    (void)ctx;
    (void)path;
    (void)err_no;
    (void)what;
    abort(); /* a file of this process's own, of a kind dump knows */
}

static void on_checkpoint(void *ctx, const kf_checkpoint_entry *c)
{
    seen *s = ctx;
    s->n++;
    checkpoint_values(s, c);
}

/* The same bytes read in memory, hashed as on_entry hashes dump's. */
static void expected(size_t kind, const uint8_t *data, size_t size, seen *s)
{
    kf_index ix;
    const uint8_t *p = size ? data : NULL;
    switch (kind) {
    case 0:
    case 1:
        if (kind == 0)
            kf_offset_index_init(&ix, p, size, 100);
        else
            kf_time_index_init(&ix, p, size, 100);
        for (uint64_t i = 0; i < ix.entries; i++) {
            kf_dump_entry e = {.kind = kind == 0 ? KF_DUMP_INDEX_ENTRY : KF_DUMP_TIME_INDEX_ENTRY};
            if (kind == 0)
                kf_offset_index_get(&ix, i, &e.offset, &e.position);
            else
                kf_time_index_get(&ix, i, &e.timestamp, &e.offset);
            on_entry(s, &e);
        }
        break;
    case 2:
        kf_txn_index_init(&ix, p, size, 100);
        for (uint64_t i = 0; i < ix.entries; i++) {
            kf_dump_entry e = {.kind = KF_DUMP_TXN_ENTRY};
            kf_txn_index_entry(&ix, i, &e.txn);
            on_entry(s, &e);
        }
        break;
    case 3: {
        kf_producer_snapshot ps;
        kf_producer_snapshot_parse(p, size, &ps);
        kf_dump_entry h = {.kind = KF_DUMP_SNAPSHOT, .snapshot = &ps};
        on_entry(s, &h);
        for (uint64_t i = 0; i < ps.entries; i++) {
            kf_dump_entry e = {.kind = KF_DUMP_PRODUCER};
            kf_producer_snapshot_get(&ps, i, &e.producer);
            on_entry(s, &e);
        }
        break;
    }
    case 4:
    case 5: {
        int32_t version;
        kf_checkpoint_parse(p, size, kind == 4 ? KF_CHECKPOINT_LEADER_EPOCH : KF_CHECKPOINT_OFFSETS, &version,
                            on_checkpoint, s, NULL, NULL);
        break;
    }
    case 6: {
        kf_partition_metadata pm;
        s->parsed = kf_partition_metadata_parse(p, size, &pm) == KF_OK;
        s->metadata = 1;
        break;
    }
    default:
        s->metadata = 1;
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size - 1 > MAX_INPUT)
        return 0;
    setup();
    size_t kind = data[0] % NAMES;
    data++;
    size--;
    const char *path = files[kind];
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        abort();

    seen got = {.hash = FUZZ_HASH_INIT};
    kf_dump_opts o;
    kf_dump_opts_init(&o);
    o.records = true;
    o.include_damaged = true;
    o.threads = 1;
    o.ctx = &got;
    o.file_fn = on_file;
    o.entry_fn = on_entry;
    o.batch_fn = on_batch;
    o.record_fn = on_record;
    o.damaged_fn = on_damaged;
    o.problem_fn = on_problem;
    o.path_error_fn = on_path_error;
    kf_dump_result res = {0};
    char *paths[] = {(char *)path};
    if (kf_dump_paths(paths, 1, &o, &res) != KF_OK || res.failed || res.skipped)
        abort();
    unlink(path);
    if (kind >= NAMES - 2)
        return 0; /* a segment: read by the readers fuzz_segment checks */
    if (got.files != 1 || got.batches || got.records)
        abort();

    seen want = {.hash = FUZZ_HASH_INIT};
    expected(kind, data, size, &want);
    if (got.n != want.n || got.hash != want.hash || got.metadata != want.metadata || got.parsed != want.parsed)
        abort();
    return 0;
}
