/* json_text.h: kfsck's own JSON as indented text (json_text.c). */
#ifndef KFSCK_CLI_JSON_TEXT_H
#define KFSCK_CLI_JSON_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

void json_text_print(FILE *f, const char *json, size_t n, int level);

#endif
