/* error.c: the thread-local last error (kf_error_last, common.h) and its
 * setter for the library's functions (error.h). */
#include "bytes/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local kf_error last_error;

const kf_error *kf_error_last(void) { return &last_error; }

void kf_error_clear(void) { memset(&last_error, 0, sizeof last_error); }

int kf_error_set(int code, int err_no, const char *path, const char *fmt, ...)
{
    last_error.code = code < 0 ? -code : code;
    last_error.err_no = err_no;
    snprintf(last_error.path, sizeof last_error.path, "%s", path ? path : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error.message, sizeof last_error.message, fmt, ap);
    va_end(ap);
    return code;
}

int kf_error_nomem(void)
{
    return kf_error_set(KF_ERR_NOMEM, ENOMEM, NULL, "out of memory");
}
