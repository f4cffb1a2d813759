/* clean_shutdown.c: the .kafka_cleanshutdown JSON of KIP-966
 * (include/kfsck/sys/clean_shutdown.h). Jackson reads it into a class with
 * `version` and `brokerEpoch`, ignoring other fields
 * (storage/.../checkpoint/CleanShutdownFileHandler.java); a missing or
 * non-numeric brokerEpoch makes its read() return none. */
#include "kfsck/sys/clean_shutdown.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

static bool all_blank(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\n' && p[i] != '\r')
            return false;
    return true;
}

int kf_clean_shutdown_parse(const uint8_t *data, size_t size, kf_clean_shutdown *cs, char *msg, size_t msglen)
{
    memset(cs, 0, sizeof *cs);
    if (msg && msglen)
        msg[0] = 0;
    if (!data || size == 0 || all_blank(data, size)) {
        cs->empty = true;
        return KF_OK;
    }
    json_error_t je;
    json_t *root = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        if (msg)
            snprintf(msg, msglen, "not JSON: %s (byte %d)", je.text, je.position);
        return KF_ERR_CORRUPT;
    }
    int rc = KF_OK;
    if (!json_is_object(root)) {
        if (msg)
            snprintf(msg, msglen, "not a JSON object");
        rc = KF_ERR_CORRUPT;
    } else {
        json_t *v = json_object_get(root, "version");
        if (json_is_integer(v) && json_integer_value(v) >= INT32_MIN && json_integer_value(v) <= INT32_MAX) {
            cs->has_version = true;
            cs->version = (int32_t)json_integer_value(v);
        }
        json_t *e = json_object_get(root, "brokerEpoch");
        if (json_is_integer(e)) {
            cs->has_broker_epoch = true;
            cs->broker_epoch = (int64_t)json_integer_value(e);
        } else {
            if (msg)
                snprintf(msg, msglen, "no integer brokerEpoch");
            rc = KF_ERR_CORRUPT;
        }
    }
    json_decref(root);
    return rc;
}
