/* server_properties.h: a Java properties file (a broker's server.properties)
 * read as java.util.Properties.load reads it: natural lines end at \n, \r or
 * \r\n; leading blanks (space, tab, form feed) are skipped; a line whose
 * first other character is '#' or '!' is a comment; a line ending in an odd
 * number of backslashes goes on with the next line (whose leading blanks are
 * skipped); the key ends at the first unescaped '=', ':' or blank, and one
 * '=' or ':' with the blanks around it is the separator; escapes \t \n \r \f
 * \uXXXX (written out as UTF-8) and "\c" for any other c are undone in keys
 * and values. Bytes above 0x7f are passed on as they are (Java reads them as
 * ISO-8859-1). Nothing is allocated beyond one line; nothing is printed. */
#ifndef KFSCK_SERVER_PROPERTIES_H
#define KFSCK_SERVER_PROPERTIES_H

#include <stddef.h>
#include <stdint.h>

#include "kfsck/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The longest logical line (continuations joined) read, in bytes. */
#define KF_PROPERTIES_LINE_MAX (1u << 20)

/* One key and its value (not NUL-terminated; valid during the call), in file
 * order: a key given twice comes twice, and the last one is what Java keeps.
 * Return KF_OK to go on; anything else stops the parse and is returned. */
typedef int (*kf_property_fn)(void *ctx, const char *key, size_t klen, const char *value, size_t vlen);

/* Parse data. Returns KF_OK; KF_ERR_CORRUPT for a malformed \uXXXX escape
 * (Java: "Malformed \uxxxx encoding."); KF_ERR_TOO_BIG for a logical line
 * longer than KF_PROPERTIES_LINE_MAX; KF_ERR_NOMEM; or what fn returned. *line
 * (may be NULL) gets the 1-based number of the natural line where the
 * logical line that failed starts. */
int kf_properties_parse(const uint8_t *data, size_t size, kf_property_fn fn, void *ctx, uint64_t *line);

#ifdef __cplusplus
}
#endif

#endif
