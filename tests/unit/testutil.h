/* testutil.h: what every cmocka unit test includes. */
#ifndef KFSCK_TESTUTIL_H
#define KFSCK_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kfsck/kfsck.h"

/* Collects reported problems so tests can assert on codes and positions. */
typedef struct problem_log {
    int n;
    char code[64][40];
    uint64_t position[64];
    int64_t offset[64];
    int has_offset[64];
    int severity[64];
    uint64_t length[64];
} problem_log;

static inline void problem_log_fn(void *ctx, const kf_problem *p)
{
    problem_log *l = ctx;
    if (l->n >= 64)
        return;
    snprintf(l->code[l->n], sizeof l->code[0], "%s", p->code);
    l->position[l->n] = p->position;
    l->offset[l->n] = p->offset;
    l->has_offset[l->n] = p->has_offset;
    l->severity[l->n] = p->severity;
    l->length[l->n] = p->has_length ? p->length : 0;
    l->n++;
}

static inline int problem_log_has(const problem_log *l, const char *code)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->code[i], code) == 0)
            return 1;
    return 0;
}

/* Reads a whole (small) test file into a malloc'd buffer. */
static inline uint8_t *read_test_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf && n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = (size_t)(n > 0 ? n : 0);
    return buf;
}

#endif
