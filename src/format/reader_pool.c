/* reader_pool.c: the streaming reader's threads and the in-order hand-off
 * of chunks (see reader.c for the three stages). A chunk goes through four
 * tasks: reading its block of the file (any thread, several at a time),
 * framing it (in file order, one thread at a time), checking each batch's
 * CRC and, when the iterator checks records, decoding them (any thread),
 * and consuming it (the caller's thread, in file order). Each thread,
 * helpers and the caller's alike, takes the next task there is under one
 * lock and does it with the lock released: framing first (it is quick and
 * everything waits for it), then the oldest check, then a read into a free
 * chunk; so a thread usually reads a block, frames and checks it while
 * the other reads and checks the next, and a hand-off costs a lock, not a
 * wake-up. A thread waits only when there is nothing to do, and is woken
 * when there is. The consumer takes the chunks in file order
 * (kf_reader_take_chunk), drops those of an old generation, and gives each
 * back when done with it (kf_reader_release), which lets the page cache
 * drop the pages the stream is past. Unthreaded, kf_reader_take_chunk does
 * the tasks itself, one after the other. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "format/batch_check.h"
#include "format/block_cache.h"
#include "format/source.h"
#include "format/reader_internal.h"

/* ---- workers ------------------------------------------------------------ */

static void check_records(kf_segment_iter *it, reader_chunk *c, size_t i, kf_buf *scratch)
{
    reader_item *x = &c->items[i];
    reader_records_check *d = &c->checks[i];
    memset(d, 0, sizeof *d);
    d->msg = UINT32_MAX;
    d->done = true;
    int32_t plain;
    if (!x->b.control && kf_records_count_plain(&x->b, &plain)) { /* the common case, kept apart */
        d->records = (uint64_t)plain;
        d->ok = true;
        return;
    }
    kf_record_iter ri;
    int rc = kf_records_begin(&ri, &x->b, scratch, it->o.max_batch_bytes);
    uint64_t count = 0;
    int n = 0;
    bool marker = false; /* a transaction marker stands alone in its batch; KRaft
                            control batches may hold several control records */
    if (rc == KF_OK) {
        kf_record r;
        while ((n = kf_records_next(&ri, &r)) == 1) {
            count++;
            if (x->b.control) {
                kf_control ctl;
                bool parsed = kf_control_parse(&r, &ctl) == KF_OK;
                if (count == 1)
                    marker = parsed && (ctl.type == KF_CONTROL_ABORT || ctl.type == KF_CONTROL_COMMIT);
                if (!parsed)
                    d->ctl_malformed = true;
                else if (count > 1 && marker)
                    d->ctl_extra++;
            }
        }
    }
    d->records = count;
    d->ok = rc == KF_OK && n == 0;
    if (!d->ok) {
        d->code = ri.err_code ? ri.err_code : KF_P_BAD_RECORD;
        size_t cap = c->capmsgs;
        char(*nm)[200] = kf_reader_grow(c->msgs, &cap, c->nmsgs + 1, sizeof *nm);
        if (nm) {
            c->msgs = nm;
            c->capmsgs = cap;
            snprintf(c->msgs[c->nmsgs], sizeof c->msgs[0], "%s", ri.err_msg);
            d->msg = (uint32_t)c->nmsgs++;
        }
    }
}

static void check_chunk(kf_segment_iter *it, reader_chunk *c, kf_buf *scratch)
{
    for (size_t i = 0; i < c->nitems; i++) {
        reader_item *x = &c->items[i];
        if (x->kind != IT_BATCH)
            continue;
        x->crc_ok = kf_batch_verify_crc(&x->b);
        if (it->check_records) {
            c->checks[i].done = false;
            if (x->crc_ok && x->parse_ok)
                check_records(it, c, i, scratch);
        }
        if (atomic_load_explicit(&it->gen, memory_order_relaxed) > c->gen)
            return; /* dropped by the consumer already: skip the rest */
    }
}

/* ---- tasks -------------------------------------------------------------- */

enum { T_NONE, T_READ, T_FRAME, T_RESTART, T_CHECK };

typedef struct reader_task {
    int kind;
    reader_chunk *c;
    reader_restart_request req; /* T_RESTART */
} reader_task;

static reader_chunk *find_chunk(kf_segment_iter *it, int state)
{
    reader_chunk *best = NULL;
    for (size_t i = 0; i < it->nchunks; i++)
        if (it->chunks[i].state == state && (!best || it->chunks[i].seq < best->seq))
            best = &it->chunks[i];
    return best;
}

/* The chunk whose block is the fseq-th read (reading or read), or NULL. */
static reader_chunk *next_block(kf_segment_iter *it)
{
    for (size_t i = 0; i < it->nchunks; i++) {
        reader_chunk *c = &it->chunks[i];
        if ((c->state == C_READING || c->state == C_READ) && c->rseq == it->fseq)
            return c;
    }
    return NULL;
}

/* With it->mu held: the framing task, if framing may go on now. Blocks of
 * an older read plan, or read after the end, are given back on the way. */
static bool take_framing(kf_segment_iter *it, reader_task *t)
{
    if (it->framing)
        return false;
    for (;;) {
        reader_chunk *b = next_block(it);
        if (it->req.gen > it->wgen) { /* a restart: into the next block's chunk, or a free one */
            reader_chunk *c = b && b->state == C_READ ? b : find_chunk(it, C_FREE);
            if (!c)
                return false;
            if (c == b)
                it->fseq++;
            t->kind = T_RESTART;
            t->req = it->req;
            t->c = c;
            break;
        }
        if (!b || b->state != C_READ)
            return false;
        it->fseq++;
        if (b->grid != it->grid || it->wdone) {
            b->state = C_FREE;
            continue;
        }
        t->kind = T_FRAME;
        t->c = b;
        break;
    }
    t->c->state = C_FRAMING;
    it->framing = true;
    return true;
}

/* Reading a file that is not in the page cache (a copied data dir, the
 * usual case). Where the file system allows it and the chunk's buffer is
 * huge pages (block_cache.c), a cold block of chunk_bytes is read past the
 * page cache (O_DIRECT), two such reads at a time: no copy, no pages to
 * drop, half the CPU time, and the disk has the next read queued while
 * one is checked. Measured on a 2-CPU VM, a 1 GiB file evicted before
 * each run, 8-10 rounds (the host's free page reporting held off, which
 * otherwise slows cat): verify 1.09-1.17x cat's speed (median of each
 * round's ratio; CPU 0.07-0.08 s against cat's 0.11 s), where reading
 * through the page cache (below) gave 0.91-0.95x. One such read at a time
 * gave 0.96x; into 4 KiB pages, 0.50x; 512 KiB reads, 0.53x (their
 * buffers are under a huge page); 2-4 MiB, 1.08-1.14x.
 *
 * Where reads past the cache are not to be had, one block is read at a
 * time, of COLD_BLOCK at most: one thread waits for the disk while the
 * other checks, and the kernel's read-ahead keeps the disk busy (in the
 * same rounds: 256 KiB one at a time 0.93-1.00x, 1 MiB two at a time
 * 0.95x). On that VM the host's disk emulation competes with the guest's
 * CPUs (cat of the same file ran 10% slower with the other CPU busy), so
 * CPU work beside the reads costs disk speed.
 *
 * A direct read must start on a multiple of KF_DIRECT_ALIGN: after a
 * restart at an unaligned position, the block up to the next multiple is
 * read through the cache first. From the page cache nothing changes: two
 * blocks of chunk_bytes may be read at once. With it->mu held. */
#define COLD_BLOCK ((size_t)256 << 10)

static bool may_read(const kf_segment_iter *it)
{
    return !it->rdone && !(it->cold && it->reads >= (it->direct ? 2u : 1u));
}

/* Whether cold blocks of it may be read past the page cache: its buffers
 * (the carry's room and a block) are a huge page or more and none was
 * found to be small pages, and the source allows it. */
static bool direct_reads(kf_segment_iter *it)
{
    return it->carry_room + it->chunk_bytes >= HUGE_PAGE &&
           !atomic_load_explicit(&it->small_pages, memory_order_relaxed) && kf_source_direct_ok(it->src);
}

/* With it->mu held: the next task there is (T_NONE: none). */
static reader_task take_task(kf_segment_iter *it)
{
    reader_task t = {T_NONE, NULL, {0}};
    if (take_framing(it, &t))
        return t;
    if ((t.c = find_chunk(it, C_FILLED))) {
        t.kind = T_CHECK;
        t.c->state = C_CHECKING;
        return t;
    }
    uint64_t size = kf_source_size(it->src);
    if (may_read(it) && (t.c = find_chunk(it, C_FREE))) {
        size_t want = it->chunk_bytes;
        it->cold = kf_source_uncached(it->src, it->rpos, it->rpos + want);
        it->direct = it->cold && direct_reads(it);
        t.c->direct = false;
        if (it->direct && it->rpos % KF_DIRECT_ALIGN)
            want = (size_t)(KF_DIRECT_ALIGN - it->rpos % KF_DIRECT_ALIGN); /* through the cache, to where direct reads may start */
        else if (it->direct)
            t.c->direct = true;
        else if (it->cold && want > COLD_BLOCK)
            want = COLD_BLOCK;
        it->reads++;
        t.kind = T_READ;
        t.c->state = C_READING;
        t.c->rseq = it->next_rseq++;
        t.c->grid = it->grid;
        t.c->bstart = it->rpos;
        t.c->blen = it->rpos < size ? (size - it->rpos < want ? (size_t)(size - it->rpos) : want) : 0;
        it->rpos += t.c->blen;
        if (it->rpos >= size)
            it->rdone = true;
        return t;
    }
    t.c = NULL;
    return t;
}

/* Is there a task for another thread? (With it->mu held.) */
static bool more_to_do(kf_segment_iter *it)
{
    if (find_chunk(it, C_FILLED) || (may_read(it) && find_chunk(it, C_FREE)))
        return true;
    if (it->framing)
        return false;
    reader_chunk *b = next_block(it);
    return (b && b->state == C_READ) || (it->req.gen > it->wgen && find_chunk(it, C_FREE));
}

/* The chunk the consumer takes next, when it is checked. */
static reader_chunk *consumer_chunk(kf_segment_iter *it)
{
    for (size_t i = 0; i < it->nchunks; i++) {
        reader_chunk *c = &it->chunks[i];
        if (c->state >= C_FILLED && c->state != C_CONSUMING && c->seq == it->cseq)
            return c->state == C_CHECKED ? c : NULL;
    }
    return NULL;
}

/* With it->mu held: wakes a waiting thread when there is work for it. */
void kf_reader_wake(kf_segment_iter *it)
{
    if (!it->threaded)
        return;
    if (it->consumer_waiting && consumer_chunk(it)) {
        pthread_cond_signal(&it->cv_consumer);
        return;
    }
    if (!more_to_do(it))
        return;
    if (it->helpers_waiting)
        pthread_cond_signal(&it->cv_helper);
    else if (it->consumer_waiting)
        pthread_cond_signal(&it->cv_consumer);
}

/* Does task t with it->mu released (when threaded), then settles it. */
static void run_task(kf_segment_iter *it, reader_task *t, kf_buf *scratch)
{
    reader_chunk *c = t->c;
    bool reset = false;
    if (it->threaded)
        pthread_mutex_unlock(&it->mu);
    switch (t->kind) {
    case T_READ:
        kf_reader_read_block(it, c);
        break;
    case T_FRAME:
        reset = kf_reader_frame(it, c);
        break;
    case T_RESTART:
        kf_reader_walker_restart(it, c, &t->req);
        reset = true;
        break;
    case T_CHECK:
        check_chunk(it, c, scratch);
        break;
    }
    if (it->threaded)
        pthread_mutex_lock(&it->mu);
    switch (t->kind) {
    case T_READ:
        c->state = C_READ;
        it->reads--;
        break;
    case T_FRAME:
    case T_RESTART:
        c->gen = it->wgen;
        c->seq = it->next_seq++;
        c->state = C_FILLED;
        if (reset) { /* the blocks read ahead are dropped: read from where framing is */
            it->grid++;
            it->rpos = it->wpos;
            it->rdone = false;
        }
        if (it->wdone || c->nomem || c->ioerr)
            it->rdone = true;
        it->framing = false;
        break;
    case T_CHECK:
        c->state = C_CHECKED;
        break;
    }
    kf_reader_wake(it);
}

/* ---- threads ------------------------------------------------------------ */

void *kf_reader_helper_main(void *arg)
{
    kf_segment_iter *it = arg;
    kf_buf scratch = {0};
    pthread_mutex_lock(&it->mu);
    while (!it->stop) {
        reader_task t = take_task(it);
        if (t.kind == T_NONE) {
            it->helpers_waiting++;
            pthread_cond_wait(&it->cv_helper, &it->mu);
            it->helpers_waiting--;
            continue;
        }
        run_task(it, &t, &scratch);
    }
    pthread_mutex_unlock(&it->mu);
    kf_buf_free(&scratch);
    return NULL;
}

/* ---- hand-off to the consumer ------------------------------------------- */

void kf_reader_release(kf_segment_iter *it, reader_chunk *c, bool in_order)
{
    if (!c)
        return;
    if (in_order && !it->o.keep_cache)
        kf_source_done_below(it->src, c->start);
    if (it->threaded) {
        pthread_mutex_lock(&it->mu);
        c->state = C_FREE;
        kf_reader_wake(it);
        pthread_mutex_unlock(&it->mu);
    } else {
        c->state = C_FREE;
    }
}

/* The next chunk of the consumer's generation, checked; NULL on failure.
 * While it is not ready, the caller's thread does the tasks there are. */
reader_chunk *kf_reader_take_chunk(kf_segment_iter *it)
{
    uint64_t gen = atomic_load(&it->gen);
    if (it->threaded)
        pthread_mutex_lock(&it->mu);
    reader_chunk *c;
    for (;;) {
        c = consumer_chunk(it);
        if (c) {
            c->state = C_CONSUMING;
            it->cseq++;
            if (c->gen >= gen)
                break;
            c->state = C_FREE; /* of an old generation: dropped */
            kf_reader_wake(it);
            continue;
        }
        reader_task t = take_task(it);
        if (t.kind != T_NONE) {
            run_task(it, &t, &it->consumer_scratch);
            continue;
        }
        if (!it->threaded)
            return NULL; /* cannot happen: at most two chunks are held, a third goes round */
        it->consumer_waiting = true;
        pthread_cond_wait(&it->cv_consumer, &it->mu);
        it->consumer_waiting = false;
    }
    if (it->threaded)
        pthread_mutex_unlock(&it->mu);
    return c;
}
