/* slot_window.h: a file of fixed-size entries (an index's slots, a producer
 * snapshot's entries) read a window at a time: one reused buffer holds up
 * to `window` entries and is refilled from the file when an entry outside
 * it is asked for, so a file of any size is read in bounded memory. A read
 * that fails or comes back short ends the reading: every later entry
 * outside the window is NULL and kf_slot_window_status says why. Internal
 * to the library. */
#ifndef KFSCK_FORMAT_SLOT_WINDOW_H
#define KFSCK_FORMAT_SLOT_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/source.h"

struct kf_slot_window {
    kf_source *src;
    uint8_t *buf;
    uint64_t start;      /* the file position of entry 0 (after a header) */
    uint64_t entries;    /* the whole entries in the file from start */
    uint64_t entry_size; /* bytes of an entry */
    uint64_t window;     /* entries read at a time */
    uint64_t first, n;   /* entries [first, first + n) are in buf */
    bool failed;         /* a read failed or came back short */
    int err_no;          /* its errno, 0 when the file shrank */
    bool owns_src;       /* src closed with the window */
};
typedef struct kf_slot_window kf_slot_window;

/* A window over `entries` entries of entry_size bytes from position start
 * of src (which must outlive it unless owns_src is set), reading `window`
 * entries at a time; its buffer holds at least min_buf bytes (for a caller
 * that uses it before the entries, as a snapshot's CRC does). NULL when
 * out of memory. */
kf_slot_window *kf_slot_window_new(kf_source *src, uint64_t start, uint64_t entries, uint64_t entry_size,
                                   uint64_t window, size_t min_buf);
/* Frees *pw (closing its source if it owns it) and sets it to NULL. */
void kf_slot_window_close(kf_slot_window **pw);

/* KF_OK (also for NULL), or KF_ERR_IO with the last error set (the errno;
 * 0 and "the file shrank while it was read" for a short read) once a read
 * failed. */
int kf_slot_window_status(const kf_slot_window *w);

/* kf_slot_window_at's slow path: reads entry i and the ones after it. */
const uint8_t *kf_slot_window_fill(kf_slot_window *w, uint64_t i);

/* Is entry i in the buffer? */
static inline bool kf_slot_window_has(const kf_slot_window *w, uint64_t i)
{
    return i >= w->first && i - w->first < w->n;
}

/* The bytes of entry i (< w->entries): from the buffer, or read into it
 * with the entries after it; NULL once a read has failed. */
static inline const uint8_t *kf_slot_window_at(kf_slot_window *w, uint64_t i)
{
    if (kf_slot_window_has(w, i))
        return w->buf + (i - w->first) * w->entry_size;
    return kf_slot_window_fill(w, i);
}

#endif
