/* reader_walker.c: the streaming reader's first stage (see reader.c for
 * the three stages): reading and framing. The file is read in blocks of
 * chunk_bytes with pread into reused buffers (or the memory source's bytes
 * are used as they are), by whichever thread is free, several at a time;
 * framing then takes the blocks in file order, puts in front of each the
 * start of the entry the previous one ended in (the carry), so that every
 * entry lies whole in one chunk, frames the entries (length, magic,
 * minimum size) and parses their headers. Framing damage (zero fill, torn
 * or impossible lengths, bad magic, entries too large to read whole) is
 * handled here: it resynchronises with resync.c's forward scan and puts
 * the problems into the chunk as items, in file order. When framing goes
 * on somewhere the next block does not start (damage skipped, an entry
 * larger than the carry room), the blocks read ahead are dropped and the
 * reads start again there (reader_pool.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "format/source.h"
#include "bytes/cursor.h"
#include "format/block_cache.h"
#include "format/reader_internal.h"

static reader_item *add_item(kf_segment_iter *it, reader_chunk *c)
{
    reader_item *ni = kf_reader_grow(c->items, &c->capitems, c->nitems + 1, sizeof *ni);
    if (!ni) {
        c->nomem = true;
        return NULL;
    }
    c->items = ni;
    if (it->check_records) {
        size_t cap = c->capchecks;
        reader_records_check *nc = kf_reader_grow(c->checks, &cap, c->nitems + 1, sizeof *nc);
        if (!nc) {
            c->nomem = true;
            return NULL;
        }
        c->checks = nc;
        c->capchecks = cap;
    }
    reader_item *x = &c->items[c->nitems++];
    memset(x, 0, sizeof *x);
    return x;
}

/* A problem item (kind IT_PROBLEM unless the caller changes it). */
static reader_problem *add_problem(kf_segment_iter *it, reader_chunk *c, const char *code, kf_severity sev, uint64_t pos,
                             bool has_off, int64_t off, uint64_t length, bool has_length, const char *msg)
{
    reader_problem *np = kf_reader_grow(c->probs, &c->capprobs, c->nprobs + 1, sizeof *np);
    if (!np) {
        c->nomem = true;
        return NULL;
    }
    c->probs = np;
    reader_item *x = add_item(it, c);
    if (!x)
        return NULL;
    x->kind = IT_PROBLEM;
    x->aux = (uint32_t)c->nprobs;
    reader_problem *w = &c->probs[c->nprobs++];
    memset(w, 0, sizeof *w);
    w->p.code = code;
    w->p.severity = sev;
    w->p.position = pos;
    w->p.has_offset = has_off;
    w->p.offset = has_off ? off : 0;
    w->p.has_length = has_length;
    w->p.length = length;
    snprintf(w->p.message, sizeof w->p.message, "%s", msg);
    return w;
}

/* Makes c's buffer hold at least n bytes (what it held is lost). The
 * buffer is page-aligned, and so are the blocks read into it (carry_room
 * is whole pages): the kernel copies into a buffer 16 bytes off a page
 * boundary (malloc's) at a quarter of the speed (measured: 0.44 s against
 * 0.12 s for 1 GiB from the page cache). */
static bool room(reader_chunk *c, size_t n, bool *fresh)
{
    *fresh = false;
    if (n <= c->cap)
        return true;
    size_t cap;
    void *nb = kf_block_take(n, &cap, fresh);
    if (!nb)
        return false;
    kf_block_give(c->buf, c->cap);
    c->buf = nb;
    c->cap = cap;
    c->huge = -1;
    return true;
}

/* Whether c's block may be read past the page cache: asked for (a cold
 * block, see reader_pool.c), and c's buffer is huge pages (reads into
 * 4 KiB pages past the cache are slower than through it). */
static bool read_direct(kf_segment_iter *it, reader_chunk *c)
{
    if (!c->direct)
        return false;
    if (c->huge < 0)
        c->huge = kf_block_huge(c->buf, c->cap);
    if (!c->huge) /* the system has none to give: the cold blocks go as they go without */
        atomic_store_explicit(&it->small_pages, true, memory_order_relaxed);
    return c->huge > 0;
}

enum { POPULATE_MIN = 64 * 1024 }; /* smaller blocks: a few faults, no call */

void kf_reader_read_block(kf_segment_iter *it, reader_chunk *c)
{
    c->read_err = 0;
    c->got = 0;
    if (kf_source_data(it->src)) {
        c->got = c->blen;
        return;
    }
    bool fresh;
    size_t whole = (c->blen + KF_DIRECT_ALIGN - 1) / KF_DIRECT_ALIGN * KF_DIRECT_ALIGN; /* for a direct read */
    if (!room(c, it->carry_room + whole, &fresh)) {
        c->read_err = KF_ERR_NOMEM;
        return;
    }
#ifdef MADV_POPULATE_WRITE
    /* A new buffer's pages, the ones this read fills anyway, in one call
     * rather than a fault each while the kernel copies (256 for a 1 MiB
     * block; measured: 2-4 ms of CPU less on 128-256 MiB runs). Before
     * Linux 5.14 this fails and the pages fault in as before. A buffer
     * from the block cache has its pages already. */
    if (fresh && c->blen >= POPULATE_MIN)
        (void)madvise(c->buf + it->carry_room, whole, MADV_POPULATE_WRITE);
#endif
    /* residency up to the block's end was looked at when the block was
     * handed out (take_task's kf_source_uncached) */
    uint8_t *to = c->buf + it->carry_room;
    int64_t got = !c->blen          ? 0
                  : read_direct(it, c) ? kf_source_pread_direct(it->src, c->bstart, to, c->blen)
                                   : kf_source_pread(it->src, c->bstart, to, c->blen);
    if (got < 0)
        c->read_err = KF_ERR_IO;
    else
        c->got = (size_t)got;
}

/* Load [pos, pos + n) into c (n <= file bytes left), for an entry larger
 * than its chunk. False on failure. */
static bool load(kf_segment_iter *it, reader_chunk *c, uint64_t pos, size_t n)
{
    c->start = pos;
    const uint8_t *mem = kf_source_data(it->src);
    if (mem) {
        c->data = mem + pos;
        c->len = n;
        return true;
    }
    bool fresh;
    if (!room(c, n, &fresh)) {
        c->nomem = true;
        return false;
    }
    kf_source_will_read(it->src, pos + n);
    int64_t got = kf_source_pread(it->src, pos, c->buf, n);
    if (got < 0) {
        c->ioerr = true;
        return false;
    }
    if ((size_t)got < n) /* the file shrank since it was opened */
        it->wsize = pos + (uint64_t)got;
    c->data = c->buf;
    c->len = (size_t)got;
    return true;
}

static void walker_set_end(kf_segment_iter *it, reader_chunk *c)
{
    if (it->win.size < it->wsize)
        it->wsize = it->win.size;
    c->end = true;
    c->end_pos = it->wpos < it->wsize ? it->wpos : it->wsize;
    c->end_size = it->wsize;
    it->wdone = true;
}

/* Damage starting at pos: report it, resynchronise, and move wpos to where
 * reading resumes. hint_next: where the entry after it would start if its
 * length is right (0: none). */
static void walker_skip_damage(kf_segment_iter *it, reader_chunk *c, uint64_t pos, const char *code, bool has_off,
                               int64_t off, const char *msg, uint64_t hint_next)
{
    kf_window *w = &it->win;
    w->size = it->wsize;
    uint64_t size = it->wsize;
    uint64_t next = size;
    if (!it->o.no_resync) {
        if (hint_next > pos && hint_next < size && kf_entry_plausible(w, hint_next))
            next = hint_next;
        else
            next = kf_find_next(w, pos + 1);
    }
    if (w->nomem)
        c->nomem = true;
    char full[240];
    if (next < size)
        snprintf(full, sizeof full, "%.160s; %llu bytes skipped to the next intact batch at position %llu", msg,
                 (unsigned long long)(next - pos), (unsigned long long)next);
    else
        snprintf(full, sizeof full, "%.200s; no intact batch after it", msg);
    reader_problem *wp = add_problem(it, c, code, KF_SEV_ERROR, pos, has_off, off, 0, false, full);
    if (wp) {
        wp->sets_valid = true;
        wp->counts_bad = true;
    }
    /* Name long zero runs inside the skipped range (zeroed pages, holes). */
    uint64_t p = pos;
    while (p < next) {
        size_t avail;
        const uint8_t *d = kf_window_at(w, p, 1, &avail);
        if (!d)
            break;
        size_t n = avail < next - p ? avail : (size_t)(next - p);
        if (d[0] != 0) {
            const uint8_t *nz = memchr(d, 0, n);
            p = nz ? p + (uint64_t)(nz - d) : p + n;
            continue;
        }
        uint64_t z = kf_zero_run_end(w, p, next);
        if (z - p >= ZERO_RUN_REPORT)
            add_problem(it, c, KF_P_ZERO_FILL, KF_SEV_ERROR, p, false, 0, z - p, true,
                        z == size ? "zero-filled range up to the end of the segment"
                                  : "zero-filled range inside the segment");
        p = z;
    }
    it->wpos = next;
    if (w->size < it->wsize) /* the file shrank under the window */
        it->wsize = w->size;
}

/* The base offset field of the entry at pos, when its 8 bytes are there:
 * a framing problem names it even when nothing else of the entry is sane. */
static bool offset_at(kf_segment_iter *it, uint64_t pos, int64_t *off)
{
    size_t avail;
    const uint8_t *q = kf_window_at(&it->win, pos, 8, &avail);
    if (!q || avail < 8)
        return false;
    *off = (int64_t)kf_be64(q);
    return true;
}

/* Framing damage at wpos (the 17-byte frame says size < 14, or fewer than 18
 * bytes are left). Moves wpos on. */
static void walker_bad_frame(kf_segment_iter *it, reader_chunk *c, bool short_tail, int32_t len)
{
    kf_window *w = &it->win;
    w->size = it->wsize;
    uint64_t pos = it->wpos, size = it->wsize;
    char msg[200];
    uint64_t z = kf_zero_run_end(w, pos, size);
    if (z >= size) { /* zeros up to the end: a preallocated tail (a sample's end says nothing) */
        reader_problem *wp = add_problem(it, c, it->o.limited ? NULL : KF_P_ZERO_FILL, KF_SEV_WARNING, pos, false, 0,
                                   size - pos, true,
                                   "zero-filled tail after the last batch (preallocated or never written)");
        if (wp)
            wp->sets_valid = true;
        it->wpos = size;
        return;
    }
    if (short_tail) {
        reader_problem *wp;
        if (it->o.limited) {
            wp = add_problem(it, c, NULL, KF_SEV_WARNING, pos, false, 0, 0, false, "");
        } else {
            snprintf(msg, sizeof msg, "%llu trailing bytes are too few for an entry header",
                     (unsigned long long)(size - pos));
            int64_t off = 0;
            bool has_off = offset_at(it, pos, &off);
            wp = add_problem(it, c, KF_P_TRUNCATED, KF_SEV_ERROR, pos, has_off, off, 0, false, msg);
            if (wp)
                wp->counts_bad = wp->torn_tail = true;
        }
        if (wp)
            wp->sets_valid = true;
        it->wpos = size;
        return;
    }
    if (z - pos >= KF_HEADER_UP_TO_MAGIC + 1) {
        /* a zeroed range followed by data: reported once, whole; a batch may
         * start with up to 11 zero bytes (offset 0), so look from z - 12 */
        uint64_t from = z - pos > 12 ? z - 12 : pos + 1;
        uint64_t next = it->o.no_resync ? size : kf_find_next(w, from);
        uint64_t zend = next < z ? next : z;
        reader_problem *wp = add_problem(it, c, KF_P_ZERO_FILL, KF_SEV_ERROR, pos, false, 0, zend - pos, true,
                                   "zero-filled range inside the segment");
        if (wp) {
            wp->sets_valid = true;
            wp->counts_bad = true;
        }
        it->wpos = next;
        return;
    }
    snprintf(msg, sizeof msg, "size field %d is below the minimum entry size of 14", len);
    int64_t off = 0;
    bool has_off = offset_at(it, pos, &off);
    walker_skip_damage(it, c, pos, KF_P_BAD_LENGTH, has_off, off, msg, 0);
}

/* The entry at wpos runs past the end of the file. */
static void walker_torn(kf_segment_iter *it, reader_chunk *c, const uint8_t *p, int32_t len)
{
    uint64_t pos = it->wpos, size = it->wsize;
    int64_t off = (int64_t)kf_be64(p);
    char msg[200];
    if (it->o.limited) {
        reader_problem *wp = add_problem(it, c, NULL, KF_SEV_WARNING, pos, false, 0, 0, false, "");
        if (wp)
            wp->sets_valid = true;
        it->wpos = size;
        return;
    }
    kf_window *w = &it->win;
    w->size = size;
    uint64_t next = it->o.no_resync ? size : kf_find_next(w, pos + 1);
    if (next < size) {
        snprintf(msg, sizeof msg, "length %d runs past the end of the file (%llu bytes left)", len,
                 (unsigned long long)(size - pos));
        walker_skip_damage(it, c, pos, KF_P_BAD_LENGTH, true, off, msg, next);
        return;
    }
    snprintf(msg, sizeof msg, "last entry is torn: it needs %lld bytes, %llu are present",
             (long long)len + KF_LOG_OVERHEAD, (unsigned long long)(size - pos));
    reader_problem *wp = add_problem(it, c, KF_P_TRUNCATED, KF_SEV_ERROR, pos, true, off, 0, false, msg);
    if (wp) {
        wp->sets_valid = true;
        wp->counts_bad = wp->torn_tail = true;
    }
    it->wpos = size;
}

/* An entry whose size is past what we read whole. Its CRC is checked in
 * pieces; whole or not, it is not handed on (its bytes are not in memory). */
static void walker_too_large(kf_segment_iter *it, reader_chunk *c, const uint8_t *p, uint32_t bsize)
{
    uint64_t pos = it->wpos;
    int magic = p[16];
    kf_window *w = &it->win;
    w->size = it->wsize;
    bool ok = false;
    if (magic == 2 || magic == 0 || magic == 1) {
        bool v2 = magic == 2;
        bool read_ok;
        uint32_t crc = kf_window_crc(w, v2, pos + (v2 ? 21 : 16), bsize - (v2 ? 21 : 16), &read_ok);
        ok = read_ok && crc == kf_be32(p + (v2 ? 17 : 12));
    }
    char msg[200];
    if (!ok) {
        snprintf(msg, sizeof msg, "entry of %u bytes (larger than --max-batch-bytes) does not hold its CRC", bsize);
        walker_skip_damage(it, c, pos, KF_P_CRC_MISMATCH, true, (int64_t)kf_be64(p), msg, pos + bsize);
        return;
    }
    snprintf(msg, sizeof msg,
             "batch of %u bytes is larger than --max-batch-bytes (%zu): its CRC holds but it was not read; "
             "raise --max-batch-bytes to check it",
             bsize, it->max_entry);
    reader_problem *wp = add_problem(it, c, KF_P_BATCH_TOO_LARGE, KF_SEV_ERROR, pos, true, (int64_t)kf_be64(p), 0,
                               false, msg);
    if (wp)
        wp->counts_bad = true; /* the broker keeps it: valid_bytes does not move */
    it->wpos = pos + bsize;
}

/* Puts c's data together: the carry, then c's block. False when framing
 * cannot go on in it (a failed read, the end). */
static bool assemble(kf_segment_iter *it, reader_chunk *c)
{
    c->nitems = c->nprobs = c->nmsgs = 0;
    c->end = c->nomem = c->ioerr = false;
    c->len = 0;
    c->start = it->wpos;
    c->data = c->buf;
    if (c->read_err) {
        c->nomem = c->read_err == KF_ERR_NOMEM;
        c->ioerr = !c->nomem;
        return false;
    }
    if (c->got < c->blen && c->bstart + c->got < it->wsize) /* the file shrank since it was opened */
        it->wsize = c->bstart + c->got;
    if (it->wpos >= it->wsize) {
        walker_set_end(it, c);
        return false;
    }
    const uint8_t *mem = kf_source_data(it->src);
    if (mem) {
        c->data = mem + it->wpos;
    } else {
        uint8_t *d = c->buf + it->carry_room - it->carry_len;
        memcpy(d, it->carry, it->carry_len);
        c->data = d;
    }
    c->len = it->carry_len + c->got;
    return true;
}

/* After framing c: the entry framing goes on with starts at wpos. When it
 * begins in c's block and goes on into the next one, its start is kept as
 * the carry; when it starts anywhere else, the reads must start again
 * there (true). */
static bool carry_over(kf_segment_iter *it, reader_chunk *c)
{
    uint64_t fend = c->bstart + c->got;
    it->carry_len = 0;
    if (it->wdone || c->nomem || c->ioerr || it->wpos == fend)
        return false;
    uint64_t cend = c->start + c->len;
    if (it->wpos < c->start || it->wpos > fend || cend < fend)
        return true;
    size_t n = (size_t)(fend - it->wpos);
    if (kf_source_data(it->src)) {
        it->carry_len = n;
        return false;
    }
    if (n > it->carry_room)
        return true;
    memcpy(it->carry, c->data + (it->wpos - c->start), n);
    it->carry_len = n;
    return false;
}

static void frame_entries(kf_segment_iter *it, reader_chunk *c);

bool kf_reader_frame(kf_segment_iter *it, reader_chunk *c)
{
    if (it->wpos + it->carry_len != c->bstart) {
        /* cannot happen: every block of a read plan starts where framing
         * left the last one; restart the plan where framing is */
        c->nitems = c->nprobs = c->nmsgs = 0;
        c->end = c->nomem = c->ioerr = false;
        c->start = it->wpos;
        c->len = 0;
        it->carry_len = 0;
        return true;
    }
    if (assemble(it, c))
        frame_entries(it, c);
    return carry_over(it, c);
}

/* Frame c's entries from wpos, and the damage met on the way. */
static void frame_entries(kf_segment_iter *it, reader_chunk *c)
{
    for (;;) {
        if (c->nomem || c->ioerr)
            return;
        uint64_t pos = it->wpos, size = it->wsize;
        if (pos >= size) {
            walker_set_end(it, c);
            return;
        }
        if (pos < c->start || pos > c->start + c->len)
            return; /* damage handling moved outside this chunk: the next one starts there */
        size_t off = (size_t)(pos - c->start);
        size_t in_chunk = c->len - off;
        uint64_t left = size - pos;
        if (in_chunk < KF_HEADER_UP_TO_MAGIC + 1 && in_chunk < left)
            return; /* the frame straddles the chunk's end */
        const uint8_t *p = c->data + off;
        uint32_t bsize;
        int8_t magic;
        kf_frame fr = kf_batch_frame(p, left, &bsize, &magic);
        if (fr != KF_FRAME_OK) {
            int32_t len = fr == KF_FRAME_SHORT_TAIL ? 0 : (int32_t)kf_be32(p + 8);
            if (fr == KF_FRAME_TORN)
                walker_torn(it, c, p, len);
            else
                walker_bad_frame(it, c, fr == KF_FRAME_SHORT_TAIL, len);
            continue;
        }
        if (bsize > in_chunk) {
            if (off > 0)
                return; /* it starts the next chunk */
            if (bsize > it->max_entry) {
                walker_too_large(it, c, p, bsize);
                continue;
            }
            if (!load(it, c, pos, bsize))
                return;
            if (c->len < bsize)
                continue; /* the file shrank under it: framing sees the new end */
            p = c->data;
            in_chunk = c->len;
        }
        kf_batch b;
        int prc = kf_batch_parse(p, bsize, pos, &b);
        char msg[200];
        if (prc == KF_ERR_UNSUPPORTED && (b.magic < 0 || b.magic > 2)) {
            /* FileLogInputStream reads any magic >= 2 as a v2 batch, and the
             * v2 CRC does not cover the magic byte: if the rest holds, the
             * broker keeps this batch, so valid_bytes does not move. */
            int64_t boff = (int64_t)kf_be64(p);
            if (b.magic > 2 && kf_batch_parse_broker(p, bsize, pos, &b) == KF_OK && kf_batch_verify_crc(&b)) {
                snprintf(msg, sizeof msg,
                         "magic byte %d is not 0, 1 or 2 (the rest of the batch is intact; "
                         "a broker would read it as magic 2)",
                         b.magic);
                reader_problem *wp = add_problem(it, c, KF_P_BAD_MAGIC, KF_SEV_ERROR, pos, true, boff, 0, false, msg);
                if (wp) {
                    reader_item *bm = &c->items[c->nitems - 1];
                    bm->kind = IT_BADMAGIC;
                    bm->b = b;
                    bm->crc_ok = true;
                    wp->counts_bad = true;
                    wp->last_offset = bm->b.last_offset;
                }
                it->wpos = pos + bsize;
                continue;
            }
            snprintf(msg, sizeof msg, "magic byte %d is not 0, 1 or 2", b.magic);
            walker_skip_damage(it, c, pos, KF_P_BAD_MAGIC, true, boff, msg, pos + bsize);
            continue;
        }
        bool min_ok = b.magic == 2 ? bsize >= KF_V2_HEADER_SIZE : bsize >= KF_LOG_OVERHEAD + KF_V0_MIN_SIZE;
        if (!min_ok) {
            snprintf(msg, sizeof msg, "entry of %u bytes is below the minimum of %d for magic %d", bsize,
                     b.magic == 2 ? KF_V2_HEADER_SIZE : KF_LOG_OVERHEAD + KF_V0_MIN_SIZE, b.magic);
            walker_skip_damage(it, c, pos, KF_P_BAD_LENGTH, true, (int64_t)kf_be64(p), msg, pos + bsize);
            continue;
        }
        reader_item *x = add_item(it, c);
        if (!x)
            return;
        x->kind = IT_BATCH;
        x->parse_ok = prc == KF_OK;
        x->b = b;
        it->wpos = pos + bsize;
    }
}

/* A restart request of a newer generation: begin it in c. */
void kf_reader_walker_restart(kf_segment_iter *it, reader_chunk *c, const reader_restart_request *r)
{
    it->wgen = r->gen;
    it->wdone = false;
    it->carry_len = 0;
    c->nitems = c->nprobs = c->nmsgs = 0;
    c->end = c->nomem = c->ioerr = false;
    c->len = 0;
    c->data = c->buf;
    c->start = r->pos;
    it->wpos = r->pos;
    walker_skip_damage(it, c, r->pos, KF_P_CRC_MISMATCH, r->has_off, r->off, r->msg, 0);
    if (it->wpos >= it->wsize)
        walker_set_end(it, c);
}
