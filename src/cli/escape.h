/* escape.h: the one escaping rule of everything kfsck prints for a person
 * (text output and standard error, every command), so that no name read
 * from disk or from a scan file - a topic or partition dir, a group or
 * transactional id, a file name, a symlink's target - can drive the
 * terminal (ESC[2J, an OSC title, BEL, a CR or newline faking a report
 * line). C-style, the way `ls -b` and git's quoting escape:
 *   - a backslash is written \\ (so an escape is never ambiguous);
 *   - newline, CR and tab are \n, \r, \t;
 *   - every other byte of a C0 control or DEL, of a C1 control (U+0080 to
 *     U+009F), of a Unicode reordering control (U+200E, U+200F, U+202A to
 *     U+202E, U+2066 to U+2069: text that reads differently from how it is
 *     stored) and every byte that is not valid UTF-8 is \xNN;
 *   - anything else (printable ASCII, other valid UTF-8) is written as it is.
 * JSON output keeps JSON's own escapes (out.c); the Prometheus output
 * escapes its label values by this rule first, then as its format asks.
 *
 * The printers (tprintf, tvprintf, tputs) apply the rule to every %s and %c
 * argument and to what tputs writes; the format strings are the program's
 * own and are written as they are. Text that is already escaped (a
 * shell-quoted argument of a suggested command) goes through traw. */
#ifndef KFSCK_CLI_ESCAPE_H
#define KFSCK_CLI_ESCAPE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* s[0..n) escaped into f. */
void esc_write(FILE *f, const char *s, size_t n);
/* s escaped into buf (cap bytes, NUL-terminated, cut short at a whole
 * escape when it does not fit); returns buf. */
char *esc_str(const char *s, char *buf, size_t cap);

/* printf into f with every %s and %c argument escaped (widths and
 * precisions as printf's: a precision cuts the argument, a width pads what
 * is written). Returns the bytes written, or -1. */
int tvprintf(FILE *f, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
int tprintf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* fputs with s escaped. */
void tputs(const char *s, FILE *f);
/* Text already escaped by this rule (shell_arg's), written as it is. */
void traw(FILE *f, const char *s);

/* s as one argument of a POSIX shell command a person may paste: as it is
 * when it holds only [A-Za-z0-9_@%+=:,./-] (and is not empty), in single
 * quotes otherwise ('\'' for a quote), and in bash's $'...' with \xNN
 * escapes when it holds anything the rule above escapes - so the terminal
 * never sees a raw control and the pasted command names s exactly. Into buf
 * (cap bytes; cut short, still quoted, when s does not fit); returns buf. */
char *shell_arg(const char *s, char *buf, size_t cap);
/* shell_arg's word for s, whole, in a malloc'd string; NULL when out of memory. */
char *shell_arg_dup(const char *s);
/* before (the program's own text) as it is, then shell_arg's word for arg,
 * whole whatever its length, into f. */
void tshell(FILE *f, const char *before, const char *arg);

#endif
