/* json.h: strict JSON checks for the Connect offsets topic (json.c: why
 * not Jansson, kfsck's JSON reader everywhere else). Private. */
#ifndef KFSCK_RECORDS_JSON_H
#define KFSCK_RECORDS_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* n bytes at p are exactly one JSON value (an object), white space around allowed. */
bool kf_json_valid(const uint8_t *p, size_t n);
bool kf_json_object_valid(const uint8_t *p, size_t n);

/* A Connect offsets key `["connector", {partition}]`: the spans of the
 * connector string (quotes included) and of the partition object. */
bool kf_connect_key_parse(const uint8_t *p, size_t n, size_t *cs, size_t *ce, size_t *ps, size_t *pe);

#endif
