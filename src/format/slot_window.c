/* slot_window.c: a file of fixed-size entries read a window at a time
 * (slot_window.h), for the index reader and the producer snapshot reader. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
#include "format/slot_window.h"

kf_slot_window *kf_slot_window_new(kf_source *src, uint64_t start, uint64_t entries, uint64_t entry_size,
                                   uint64_t window, size_t min_buf)
{
    uint64_t n = entries < window ? entries : window;
    size_t size = (size_t)(n * entry_size);
    if (size < min_buf)
        size = min_buf;
    kf_slot_window *w = calloc(1, sizeof *w);
    uint8_t *buf = malloc(size ? size : 1);
    if (!w || !buf) {
        free(w);
        free(buf);
        return NULL;
    }
    *w = (kf_slot_window){
        .src = src, .buf = buf, .start = start, .entries = entries, .entry_size = entry_size, .window = window};
    return w;
}

void kf_slot_window_close(kf_slot_window **pw)
{
    kf_slot_window *w = *pw;
    if (!w)
        return;
    if (w->owns_src)
        kf_source_close(w->src);
    free(w->buf);
    free(w);
    *pw = NULL;
}

int kf_slot_window_status(const kf_slot_window *w)
{
    if (!w || !w->failed)
        return KF_OK;
    int e = w->err_no;
    return kf_error_set(KF_ERR_IO, e, NULL, "%s", e ? strerror(e) : "the file shrank while it was read");
}

const uint8_t *kf_slot_window_fill(kf_slot_window *w, uint64_t i)
{
    if (w->failed)
        return NULL;
    uint64_t n = w->entries - i < w->window ? w->entries - i : w->window;
    uint64_t es = w->entry_size;
    int64_t got = kf_source_pread(w->src, w->start + i * es, w->buf, (size_t)(n * es));
    if (got < 0 || (uint64_t)got < n * es) {
        w->failed = true;
        w->err_no = got < 0 ? errno : 0;
        w->n = 0;
        return NULL;
    }
    w->first = i;
    w->n = n;
    return w->buf;
}
