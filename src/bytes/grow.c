/* grow.c: the slow path of KF_GROW, and the free of an array of strings (grow.h). */
#include "bytes/grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool kf_grow_(void *pv, size_t *cap, size_t elem, size_t first)
{
    size_t ncap = *cap ? *cap * 2 : first;
    if (ncap <= *cap || ncap > SIZE_MAX / elem)
        return false;
    void *v;
    memcpy(&v, pv, sizeof v); /* the caller's pointer, whatever its type */
    void *nv = realloc(v, ncap * elem);
    if (!nv)
        return false;
    memcpy(pv, &nv, sizeof nv);
    *cap = ncap;
    return true;
}

void kf_strings_free(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}
