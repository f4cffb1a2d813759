/* reader_pool.c: the streaming reader's worker pool and the in-order
 * hand-off of chunks (see reader.c for the three stages). Workers check
 * each batch's CRC and, when the iterator checks records, decode them; the
 * walker's thread and the caller's check chunks too rather than wait. The
 * consumer takes the chunks in file order (kf_reader_take_chunk), drops
 * those of an old generation, and gives each back when done with it
 * (kf_reader_release), which lets the page cache drop the pages the stream
 * is past. Unthreaded, kf_reader_take_chunk runs the walker and the check
 * itself. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

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

/* ---- threads ------------------------------------------------------------ */

static reader_chunk *find_chunk(kf_segment_iter *it, int state)
{
    reader_chunk *best = NULL;
    for (size_t i = 0; i < it->nchunks; i++)
        if (it->chunks[i].state == state && (!best || it->chunks[i].seq < best->seq))
            best = &it->chunks[i];
    return best;
}

/* With it->mu held: checks the oldest chunk waiting for a worker, if there
 * is one, with the lock released meanwhile (the walker's thread and the
 * caller's do so rather than wait). False when none was waiting. */
static bool check_waiting_chunk(kf_segment_iter *it, kf_buf *scratch)
{
    reader_chunk *w = find_chunk(it, C_FILLED);
    if (!w)
        return false;
    w->state = C_CHECKING;
    pthread_mutex_unlock(&it->mu);
    check_chunk(it, w, scratch);
    pthread_mutex_lock(&it->mu);
    w->state = C_CHECKED;
    pthread_cond_broadcast(&it->cv_consumer);
    return true;
}

void *kf_reader_walker_main(void *arg)
{
    kf_segment_iter *it = arg;
    pthread_mutex_lock(&it->mu);
    for (;;) {
        bool restart = it->req.gen > it->wgen;
        reader_chunk *c = NULL;
        while (!it->stop && ((it->wdone && !restart) || !(c = find_chunk(it, C_FREE)))) {
            /* nothing to read into: check a chunk rather than wait (with
             * compressed data, reading is the light part) */
            if (!check_waiting_chunk(it, &it->walker_scratch))
                pthread_cond_wait(&it->cv_walker, &it->mu);
            restart = it->req.gen > it->wgen;
        }
        if (it->stop)
            break;
        reader_restart_request r = it->req;
        c->state = C_FILLING;
        c->seq = it->next_seq++;
        pthread_mutex_unlock(&it->mu);
        if (restart)
            kf_reader_walker_restart(it, c, &r);
        else
            kf_reader_walker_fill(it, c);
        pthread_mutex_lock(&it->mu);
        c->gen = it->wgen;
        c->state = C_FILLED;
        pthread_cond_signal(&it->cv_worker);
        pthread_cond_signal(&it->cv_consumer); /* the caller checks chunks too */
    }
    pthread_mutex_unlock(&it->mu);
    return NULL;
}

void *kf_reader_worker_main(void *arg)
{
    kf_segment_iter *it = arg;
    kf_buf scratch = {0};
    pthread_mutex_lock(&it->mu);
    for (;;) {
        reader_chunk *c = NULL;
        while (!it->stop && !(c = find_chunk(it, C_FILLED)))
            pthread_cond_wait(&it->cv_worker, &it->mu);
        if (it->stop)
            break;
        c->state = C_CHECKING;
        pthread_mutex_unlock(&it->mu);
        check_chunk(it, c, &scratch);
        pthread_mutex_lock(&it->mu);
        c->state = C_CHECKED;
        pthread_cond_broadcast(&it->cv_consumer);
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
        pthread_cond_signal(&it->cv_walker);
        pthread_mutex_unlock(&it->mu);
    } else {
        c->state = C_FREE;
    }
}

/* The next chunk of the consumer's generation, checked; NULL on failure. */
reader_chunk *kf_reader_take_chunk(kf_segment_iter *it)
{
    uint64_t gen = atomic_load(&it->gen);
    for (;;) {
        reader_chunk *c = NULL;
        if (it->threaded) {
            pthread_mutex_lock(&it->mu);
            for (;;) {
                for (size_t i = 0; i < it->nchunks; i++)
                    if (it->chunks[i].state >= C_FILLING && it->chunks[i].seq == it->cseq)
                        c = &it->chunks[i];
                if (c && c->state == C_CHECKED)
                    break;
                c = NULL;
                /* rather than wait, check a chunk that is waiting for a
                 * worker (the oldest first: most likely the one we need) */
                if (!check_waiting_chunk(it, &it->unthreaded_scratch))
                    pthread_cond_wait(&it->cv_consumer, &it->mu);
            }
            c->state = C_CONSUMING;
            pthread_mutex_unlock(&it->mu);
        } else {
            c = find_chunk(it, C_FREE);
            if (!c)
                return NULL; /* cannot happen: at most two chunks are held */
            bool restart = it->req.gen > it->wgen;
            c->seq = it->next_seq++;
            if (restart)
                kf_reader_walker_restart(it, c, &it->req);
            else
                kf_reader_walker_fill(it, c);
            c->gen = it->wgen;
            check_chunk(it, c, &it->unthreaded_scratch);
            c->state = C_CONSUMING;
        }
        it->cseq++;
        if (c->gen < gen) {
            kf_reader_release(it, c, false);
            continue;
        }
        return c;
    }
}
