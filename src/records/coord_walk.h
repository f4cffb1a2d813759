/* coord_walk.h: the generic schema walker (coord_walk.c) as the record,
 * KRaft and consumer-protocol decoders call it: the decoding context, and
 * per-message (not per-field) entry points. Private to libkfsck. */
#ifndef KFSCK_COORD_WALK_H
#define KFSCK_COORD_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "records/coord_internal.h"
#include "kfsck/sys/coord.h"
#include "bytes/cursor.h"

#define PATH_DEPTH 10 /* field path levels an error message names */
#define DTREE_DEFAULT_MAX (1u << 20) /* kf_dtree.max_nodes when it is 0 */

/* One walk over one buffer: the cursor, the arena nodes go to, and the
 * first error with the path of the field being read. */
typedef struct cs_dctx {
    kf_cursor c;
    kf_dtree *t;
    int err;        /* first kf_err, 0 while fine */
    size_t err_pos; /* where it happened (byte position in the buffer) */
    char msg[144];  /* what happened, with the field path */
    struct {
        const char *name;
        int64_t index; /* array element index, -1 when not in an array */
    } path[PATH_DEPTH];
    int depth;
    uint32_t room;  /* the arena's nodes node_new may fill without a look: its capacity, at most
                       its max_nodes */
} cs_dctx;

/* Starts a walk of p[pos..n) (pos clamped to n) into arena t. */
static inline void cs_dctx_init(cs_dctx *d, kf_dtree *t, const uint8_t *p, size_t n, size_t pos)
{
    /* the message and path buffers are written before they are read: not cleared */
    d->err = 0;
    d->err_pos = 0;
    d->msg[0] = 0;
    d->depth = 0;
    uint32_t max = t && t->max_nodes ? t->max_nodes : DTREE_DEFAULT_MAX;
    d->room = t ? (t->cap < max ? t->cap : max) : 0;
    kf_cur_init(&d->c, p, n);
    d->c.pos = pos <= n ? pos : n;
    d->t = t;
}

/* Decodes message m at version ver from the cursor into a new struct node
 * (returned, KF_DNODE_NONE when the arena is full); errors go to d->err. */
uint32_t cs_decode_message(cs_dctx *d, const cs_message *m, int16_t ver);

/* After cursor reads outside the walker: turns a cursor failure into the
 * context's error; true while there is none. */
bool cs_walk_ok(cs_dctx *d);
/* A new node in the arena, KF_DNODE_NONE (and d->err) when it is full. */
uint32_t cs_walk_node(cs_dctx *d, kf_vkind kind, const char *name);
/* Decodes the fields of struct st at version ver into node self. */
void cs_walk_struct(cs_dctx *d, const cs_struct *st, int16_t ver, bool flex, uint32_t self);

#endif
