/* grow.h: the library's growable arrays: room for one more element, the
 * capacity doubled (from a first size) when the array is full (git's
 * ALLOC_GROW, with out of memory an answer rather than an exit). Internal
 * to the library. */
#ifndef KFSCK_BYTES_GROW_H
#define KFSCK_BYTES_GROW_H

#include <stdbool.h>
#include <stddef.h>

/* KF_GROW(v, n, cap, first): room in the array v (a pointer lvalue; n
 * elements used of cap, a size_t lvalue) for one element more: when it is
 * full, v reallocated to twice cap, or to first when cap is 0. True; false
 * when out of memory or too large (v and cap unchanged). */
#define KF_GROW(v, n, cap, first) ((n) < (cap) || kf_grow_((void *)&(v), &(cap), sizeof *(v), (first)))

/* KF_GROW's slow path: pv the address of the array's pointer. */
bool kf_grow_(void *pv, size_t *cap, size_t elem, size_t first);

/* Free an array of n malloc'd strings (NULL entries allowed) and the array
 * itself: what a growable array of names holds. v may be NULL when n is 0. */
void kf_strings_free(char **v, size_t n);

#endif
