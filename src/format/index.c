/* index.c: reads a segment's index files — the offset index (.index,
 * 8-byte entries), the time index (.timeindex, 12-byte entries) and the
 * aborted-transaction index (.txnindex, 34-byte entries) — and runs the
 * self-consistency checks that need no .log (docs/formats.md §5). A
 * preallocated zero tail ends an index the way DumpLogSegments ends it: at
 * the first slot i > 0 whose relative offset is 0 (an all-zero slot 0 means
 * no entries). An index is either bytes in memory or a file read in bounded
 * pieces (a window of IX_WINDOW_SLOTS entries, reused), so an index of any
 * size is checked in bounded memory; the zero tail's holes are skipped, not
 * read. Every read is bounds-checked, and the number of problems one check
 * reports is capped so a garbage 10 MiB index cannot flood the output. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfsck/sys/index.h"

#include "bytes/error.h"
#include "bytes/report.h"
#include "format/slot_window.h"
#include "format/source.h"

/* At most this many problems per check call; then one summary problem. */
#define IX_MAX_PROBLEMS 100

/* Entries read at a time from an index file (96 KiB of time index, 272 KiB
 * of transaction index). */
#define IX_WINDOW_SLOTS 8192

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const uint8_t *p) { return (uint64_t)be32(p) << 32 | be32(p + 4); }

static uint16_t be16(const uint8_t *p) { return (uint16_t)((uint16_t)p[0] << 8 | p[1]); }

/* base + relative offset, wrapping instead of overflowing (no UB on garbage). */
static int64_t abs_offset(int64_t base, int32_t rel) { return (int64_t)((uint64_t)base + (uint64_t)(int64_t)rel); }

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

/* Byte position of the relative offset inside an entry. */
static size_t rel_pos(int entry_size) { return entry_size == 12 ? 8 : 0; }

/* The bytes of slot i (< ix->slots): in memory, or read into the window
 * with the slots after it; an all-zero slot once a read has failed. */
static const uint8_t *slot_bytes(const kf_index *ix, uint64_t i)
{
    static const uint8_t zero_slot[KF_TXN_ENTRY_SIZE];
    if (!ix->win)
        return ix->data + i * (uint64_t)ix->entry_size;
    const uint8_t *p = kf_slot_window_at(ix->win, i);
    return p ? p : zero_slot;
}

/* The slots of a file's index from slot i on lie in a hole (no data on disk,
 * so zeros) up to the slot returned; i when slot i is not in one. */
static uint64_t skip_hole(const kf_index *ix, uint64_t i)
{
    kf_index_window *w = ix->win;
    uint64_t es = (uint64_t)ix->entry_size, hs, he;
    if (!w || kf_slot_window_has(w, i) || !kf_source_next_hole(w->src, i * es, ix->slots * es, &hs, &he) || hs != i * es)
        return i;
    return he / es > i ? he / es : i; /* the slot that he falls in has data: read */
}

/* Counts the entries before the zero tail (a transaction index has none:
 * every whole entry counts). */
static void index_count(kf_index *ix)
{
    uint64_t n = 0;
    if (ix->entry_size == KF_TXN_ENTRY_SIZE)
        n = ix->slots;
    else if (ix->slots > 0 && !all_zero(slot_bytes(ix, 0), (size_t)ix->entry_size)) {
        size_t rp = rel_pos(ix->entry_size);
        n = 1;
        while (n < ix->slots && be32(slot_bytes(ix, n) + rp) != 0)
            n++;
    }
    ix->entries = n;
}

static void index_init(kf_index *ix, const uint8_t *data, uint64_t size, int64_t base_offset, int entry_size)
{
    memset(ix, 0, sizeof *ix);
    ix->data = data;
    ix->size = data ? size : 0;
    ix->base_offset = base_offset;
    ix->entry_size = entry_size;
    ix->slots = ix->size / (uint64_t)entry_size;
    index_count(ix);
}

static int index_open(kf_index *ix, kf_source *src, int64_t base_offset, int entry_size)
{
    memset(ix, 0, sizeof *ix);
    ix->size = kf_source_size(src);
    ix->base_offset = base_offset;
    ix->entry_size = entry_size;
    ix->slots = ix->size / (uint64_t)entry_size;
    ix->win = kf_slot_window_new(src, 0, ix->slots, (uint64_t)entry_size, IX_WINDOW_SLOTS, 0);
    if (!ix->win)
        return kf_error_nomem();
    index_count(ix);
    return KF_OK;
}

int kf_offset_index_open(kf_index *ix, kf_source *src, int64_t base_offset) { return index_open(ix, src, base_offset, 8); }

int kf_time_index_open(kf_index *ix, kf_source *src, int64_t base_offset) { return index_open(ix, src, base_offset, 12); }

int kf_txn_index_open(kf_index *ix, kf_source *src, int64_t base_offset)
{
    return index_open(ix, src, base_offset, KF_TXN_ENTRY_SIZE);
}

int kf_index_open_path(kf_index *ix, const char *path, int entry_size, int64_t base_offset)
{
    memset(ix, 0, sizeof *ix);
    if (entry_size != 8 && entry_size != 12 && entry_size != KF_TXN_ENTRY_SIZE)
        return kf_error_set(KF_ERR_UNSUPPORTED, EINVAL, path, "no index has %d-byte entries", entry_size);
    kf_source *src;
    int rc = kf_source_open(&src, path, 0);
    if (rc != KF_OK)
        return rc;
    rc = index_open(ix, src, base_offset, entry_size);
    if (rc != KF_OK) {
        kf_source_close(src);
        return kf_error_set(rc, ENOMEM, path, "out of memory");
    }
    ix->win->owns_src = true;
    return KF_OK;
}

void kf_index_close(kf_index *ix)
{
    if (ix)
        kf_slot_window_close(&ix->win);
}

int kf_index_read_status(const kf_index *ix) { return kf_slot_window_status(ix->win); }

void kf_offset_index_init(kf_index *ix, const uint8_t *data, uint64_t size, int64_t base_offset)
{
    index_init(ix, data, size, base_offset, 8);
}

void kf_time_index_init(kf_index *ix, const uint8_t *data, uint64_t size, int64_t base_offset)
{
    index_init(ix, data, size, base_offset, 12);
}

void kf_txn_index_init(kf_index *ix, const uint8_t *data, uint64_t size, int64_t base_offset)
{
    index_init(ix, data, size, base_offset, KF_TXN_ENTRY_SIZE);
}

void kf_offset_index_get(const kf_index *ix, uint64_t i, int64_t *offset, int64_t *position)
{
    if (i >= ix->slots || ix->entry_size != 8) {
        *offset = -1;
        *position = -1;
        return;
    }
    const uint8_t *p = slot_bytes(ix, i);
    *offset = abs_offset(ix->base_offset, (int32_t)be32(p));
    *position = (int32_t)be32(p + 4);
}

void kf_time_index_get(const kf_index *ix, uint64_t i, int64_t *timestamp, int64_t *offset)
{
    if (i >= ix->slots || ix->entry_size != 12) {
        *timestamp = -1;
        *offset = -1;
        return;
    }
    const uint8_t *p = slot_bytes(ix, i);
    *timestamp = (int64_t)be64(p);
    *offset = abs_offset(ix->base_offset, (int32_t)be32(p + 8));
}

/* ---- problem cap ------------------------------------------------------- */

typedef struct capped {
    kf_problem_fn fn;
    void *ctx;
    uint64_t reported;
    uint64_t suppressed;
    uint64_t first_suppressed_pos;
    const char *what;  /* "index", "time index", "transaction index" */
    const char *code;  /* code of the summary problem */
} capped;

/* True when the caller may report one more problem (and counts it). */
static bool cap_take(capped *c, uint64_t pos)
{
    if (c->reported < IX_MAX_PROBLEMS) {
        c->reported++;
        return true;
    }
    if (c->suppressed++ == 0)
        c->first_suppressed_pos = pos;
    return false;
}

/* A problem at pos (with the entry's offset when has_off), reported while
 * the cap allows. */
static void cap_report(capped *c, const char *code, uint64_t pos, bool has_off, int64_t off, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static void cap_report(capped *c, const char *code, uint64_t pos, bool has_off, int64_t off, const char *fmt, ...)
{
    if (!cap_take(c, pos))
        return;
    va_list ap;
    va_start(ap, fmt);
    kf_vreport_in(c->fn, c->ctx, NULL, code, KF_SEV_ERROR, pos, has_off, off, fmt, ap);
    va_end(ap);
}

static void cap_finish(capped *c)
{
    if (c->suppressed)
        kf_report(c->fn, c->ctx, c->code, KF_SEV_ERROR, c->first_suppressed_pos, false, 0,
                  "%" PRIu64 " further problems in this %s are not listed", c->suppressed, c->what);
}

/* Slots after the end of the entries must all be zero: a non-zero slot
 * there is an entry lost behind a zeroed one, or garbage. */
static void check_tail(const kf_index *ix, capped *c, const char *what)
{
    uint64_t es = (uint64_t)ix->entry_size;
    for (uint64_t i = ix->entries; i < ix->slots; i++) {
        uint64_t past = skip_hole(ix, i);
        if (past > i) {
            i = past - 1;
            continue;
        }
        const uint8_t *p = slot_bytes(ix, i);
        if (!all_zero(p, (size_t)es)) {
            cap_report(c, KF_P_INDEX_CORRUPT, i * es, false, 0,
                       "%s slot %" PRIu64 " is not zero although the entries end at slot %" PRIu64
                       " (the first zero slot)",
                       what, i, ix->entries);
            return;
        }
    }
}

static void check_size(const kf_index *ix, capped *c, const char *what)
{
    uint64_t es = (uint64_t)ix->entry_size;
    if (ix->size % es != 0)
        cap_report(c, KF_P_INDEX_CORRUPT, ix->slots * es, false, 0,
                   "%s file is corrupt, found %" PRIu64 " bytes which is not a multiple of %d", what, ix->size,
                   ix->entry_size);
}

/* After an offset or time index's entries: its zero tail, its size, and
 * what the cap held back. */
static void check_end(const kf_index *ix, capped *c)
{
    check_tail(ix, c, c->what);
    check_size(ix, c, c->what);
    cap_finish(c);
}

/* Entry i (at byte at) of an offset or time index: its offset is not below
 * the segment's base offset. */
static void check_base(const kf_index *ix, capped *c, uint64_t i, uint64_t at, int64_t off)
{
    if (off < ix->base_offset)
        cap_report(c, KF_P_INDEX_CORRUPT, at, true, off,
                   "%s entry %" PRIu64 " has offset %" PRId64 " which is less than the base offset %" PRId64, c->what,
                   i, off, ix->base_offset);
}

/* Entry i (at byte at, offset off) of an offset or time index: its field
 * (named) is not below the previous entry's. */
static void check_not_below(capped *c, const char *code, uint64_t i, uint64_t at, int64_t off, const char *field,
                            int64_t v, int64_t prev)
{
    if (v < prev)
        cap_report(c, code, at, true, off,
                   "%s entry %" PRIu64 " has %s %" PRId64 ", less than the previous entry's %" PRId64, c->what, i,
                   field, v, prev);
}

void kf_offset_index_check(const kf_index *ix, uint64_t log_size, kf_problem_fn fn, void *ctx)
{
    capped c = {.fn = fn, .ctx = ctx, .what = "index", .code = KF_P_INDEX_CORRUPT};
    int64_t prev_off = 0, prev_pos = 0;
    for (uint64_t i = 0; i < ix->entries; i++) {
        int64_t off, pos;
        kf_offset_index_get(ix, i, &off, &pos);
        uint64_t at = i * 8;
        check_base(ix, &c, i, at, off);
        if (pos < 0)
            cap_report(&c, KF_P_INDEX_CORRUPT, at, true, off,
                       "index entry %" PRIu64 " has negative position %" PRId64, i, pos);
        else if (log_size != UINT64_MAX && (uint64_t)pos >= log_size)
            cap_report(&c, KF_P_INDEX_BEYOND_LOG, at, true, off,
                       "index entry %" PRIu64 " points to position %" PRId64 ", at or past the end of the log (%" PRIu64
                       " bytes)",
                       i, pos, log_size);
        if (i > 0) {
            if (off <= prev_off)
                cap_report(&c, KF_P_INDEX_NOT_MONOTONIC, at, true, off,
                           "index entry %" PRIu64 " has offset %" PRId64 ", not greater than the previous entry's %" PRId64,
                           i, off, prev_off);
            else
                check_not_below(&c, KF_P_INDEX_NOT_MONOTONIC, i, at, off, "position", pos, prev_pos);
        }
        prev_off = off;
        prev_pos = pos;
    }
    check_end(ix, &c);
}

void kf_time_index_check(const kf_index *ix, kf_problem_fn fn, void *ctx)
{
    capped c = {.fn = fn, .ctx = ctx, .what = "time index", .code = KF_P_INDEX_CORRUPT};
    int64_t prev_ts = 0, prev_off = 0;
    for (uint64_t i = 0; i < ix->entries; i++) {
        int64_t ts, off;
        kf_time_index_get(ix, i, &ts, &off);
        uint64_t at = i * 12;
        check_base(ix, &c, i, at, off);
        if (i > 0) {
            check_not_below(&c, KF_P_TIMEINDEX_NOT_MONOTONIC, i, at, off, "timestamp", ts, prev_ts);
            check_not_below(&c, KF_P_INDEX_NOT_MONOTONIC, i, at, off, "offset", off, prev_off);
        }
        prev_ts = ts;
        prev_off = off;
    }
    check_end(ix, &c);
}

/* ---- the broker's sanity check ------------------------------------------ */

bool kf_index_sanity(const kf_index *ix, char *why, size_t n)
{
    const char *what = ix->entry_size == 12 ? "time index" : "index";
    if (ix->slots) {
        int64_t a, last_off, first_ts = 0, last_ts = 0;
        if (ix->entry_size == 12) {
            kf_time_index_get(ix, 0, &first_ts, &a);
            kf_time_index_get(ix, ix->slots - 1, &last_ts, &last_off);
        } else {
            kf_offset_index_get(ix, ix->slots - 1, &last_off, &a);
        }
        if (ix->entry_size == 12 && last_ts < first_ts) {
            snprintf(why, n, "corrupt time index: the last timestamp %" PRId64 " is less than the first %" PRId64,
                     last_ts, first_ts);
            return false;
        }
        if (last_off < ix->base_offset) {
            snprintf(why, n, "corrupt %s: the last offset %" PRId64 " is less than the base offset %" PRId64, what,
                     last_off, ix->base_offset);
            return false;
        }
    }
    if (ix->size % (uint64_t)ix->entry_size) {
        snprintf(why, n, "corrupt %s: %" PRIu64 " bytes is not a multiple of %d", what, ix->size, ix->entry_size);
        return false;
    }
    return true;
}

bool kf_txn_index_sanity(const kf_index *ix, char *why, size_t n)
{
    for (uint64_t i = 0; i < ix->entries; i++) {
        kf_txn_entry e;
        kf_txn_index_entry(ix, i, &e);
        if (e.version > 0) {
            snprintf(why, n, "aborted transaction entry %" PRIu64 " has version %d (the broker knows 0)", i, e.version);
            return false;
        }
        if (e.last_offset < ix->base_offset) {
            snprintf(why, n, "aborted transaction entry %" PRIu64 " has last offset %" PRId64
                             ", less than the start offset %" PRId64, i, e.last_offset, ix->base_offset);
            return false;
        }
    }
    return true;
}

/* ---- transaction index -------------------------------------------------- */

uint64_t kf_txn_index_count(uint64_t size) { return size / KF_TXN_ENTRY_SIZE; }

static void txn_entry_decode(const uint8_t *p, kf_txn_entry *e)
{
    e->version = (int16_t)be16(p);
    e->producer_id = (int64_t)be64(p + 2);
    e->first_offset = (int64_t)be64(p + 10);
    e->last_offset = (int64_t)be64(p + 18);
    e->last_stable_offset = (int64_t)be64(p + 26);
}

void kf_txn_index_get(const uint8_t *data, uint64_t i, kf_txn_entry *e)
{
    txn_entry_decode(data + i * KF_TXN_ENTRY_SIZE, e);
}

void kf_txn_index_entry(const kf_index *ix, uint64_t i, kf_txn_entry *e)
{
    if (i >= ix->slots || ix->entry_size != KF_TXN_ENTRY_SIZE) {
        memset(e, 0, sizeof *e);
        return;
    }
    txn_entry_decode(slot_bytes(ix, i), e);
}

void kf_txn_index_check(const kf_index *ix, kf_problem_fn fn, void *ctx)
{
    capped c = {.fn = fn, .ctx = ctx, .what = "transaction index", .code = KF_P_TXNINDEX_INVALID};
    uint64_t n = ix->entries, size = ix->size;
    int64_t base_offset = ix->base_offset, prev_last = 0;
    for (uint64_t i = 0; i < n; i++) {
        kf_txn_entry e;
        kf_txn_index_entry(ix, i, &e);
        uint64_t at = i * KF_TXN_ENTRY_SIZE;
        if (e.version != 0)
            cap_report(&c, KF_P_TXNINDEX_INVALID, at, true, e.last_offset,
                       "aborted transaction entry %" PRIu64 " has version %d (only 0 is known)", i, e.version);
        if (e.last_offset < base_offset)
            cap_report(&c, KF_P_TXNINDEX_INVALID, at, true, e.last_offset,
                       "aborted transaction entry %" PRIu64 " has last offset %" PRId64
                       " which is less than the base offset %" PRId64,
                       i, e.last_offset, base_offset);
        if (e.first_offset > e.last_offset)
            cap_report(&c, KF_P_TXNINDEX_INVALID, at, true, e.last_offset,
                       "aborted transaction entry %" PRIu64 " has first offset %" PRId64
                       " greater than its last offset %" PRId64,
                       i, e.first_offset, e.last_offset);
        if (i > 0 && e.last_offset <= prev_last)
            cap_report(&c, KF_P_TXNINDEX_INVALID, at, true, e.last_offset,
                       "aborted transaction entry %" PRIu64 " has last offset %" PRId64
                       ", not greater than the previous entry's %" PRId64,
                       i, e.last_offset, prev_last);
        prev_last = e.last_offset;
    }
    if (size % KF_TXN_ENTRY_SIZE != 0)
        cap_report(&c, KF_P_TXNINDEX_INVALID, n * KF_TXN_ENTRY_SIZE, false, 0,
                   "transaction index ends with a partial entry of %" PRIu64 " bytes (ignored)",
                   size % KF_TXN_ENTRY_SIZE);
    cap_finish(&c);
}
