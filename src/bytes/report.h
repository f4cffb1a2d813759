/* report.h: kf_report (common.h) for a problem about a named file, the
 * reporters of the library's layers use (common.c). Internal to the library. */
#ifndef KFSCK_BYTES_REPORT_H
#define KFSCK_BYTES_REPORT_H

#include <stdarg.h>

#include "kfsck/common.h"

/* kf_report for a problem about `file` (kf_problem.file). */
void kf_report_in(kf_problem_fn fn, void *ctx, const char *file, const char *code, kf_severity sev,
                  uint64_t position, bool has_offset, int64_t offset,
                  const char *fmt, ...) __attribute__((format(printf, 9, 10)));

/* kf_report_in with the arguments of fmt as a va_list, for reporters that
 * take their own printf-style arguments (ap is used up, as by vprintf). */
void kf_vreport_in(kf_problem_fn fn, void *ctx, const char *file, const char *code, kf_severity sev,
                   uint64_t position, bool has_offset, int64_t offset, const char *fmt, va_list ap)
    __attribute__((format(printf, 9, 0)));

/* p handed on to fn (may be NULL) as a problem about file when it names no
 * file, counted first into *errors or *warnings by its severity (both NULL:
 * not counted): how a job passes on what its readers report. */
void kf_problem_pass(kf_problem_fn fn, void *ctx, const kf_problem *p, const char *file, uint64_t *errors,
                     uint64_t *warnings);

/* Fill *p (everything else zero) for a caller that adds extra fields
 * (kf_problem_add_int/_text) before it hands the problem on. */
void kf_problem_fill(kf_problem *p, const char *code, kf_severity sev, uint64_t position, bool has_offset,
                     int64_t offset, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

#endif
