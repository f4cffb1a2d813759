/* error.h: how the library records the detail of a call's error (internal).
 * Every public function that returns a kf_err sets the calling thread's last
 * error at the point it returns it; callers read it with kf_error_last()
 * (common.h). */
#ifndef KFSCK_BYTES_ERROR_H
#define KFSCK_BYTES_ERROR_H

#include <errno.h>

#include "kfsck/common.h"

/* Record code (a kf_err, either sign), err_no (0 when no system call
 * failed), path (NULL: none) and a printf-style message as this thread's
 * last error. Returns code, so a function can `return kf_error_set(...)`. */
int kf_error_set(int code, int err_no, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Record out of memory (KF_ERR_NOMEM, ENOMEM, no path, "out of memory")
 * as this thread's last error; returns KF_ERR_NOMEM, so a function whose
 * allocation failed can `return kf_error_nomem();`. */
int kf_error_nomem(void);

/* An error an object kept (a sticky `err`, set where a step that returns
 * nothing failed) returned by its next call that returns one: out of
 * memory is then the last error too. */
static inline int kf_error_sticky(int err)
{
    return err == KF_ERR_NOMEM ? kf_error_nomem() : err;
}

/* rc, after setting *err_no to the last error's errno when rc is an error
 * (left alone otherwise): for library code that keeps the errno of a
 * failed call beside its result. */
static inline int kf_error_errno(int rc, int *err_no)
{
    if (rc != KF_OK && err_no)
        *err_no = kf_error_last()->err_no;
    return rc;
}

#endif
