/* clean_shutdown.c: the .kafka_cleanshutdown JSON of KIP-966
 * (include/kfsck/sys/clean_shutdown.h). Jackson reads it into a class with
 * `version` and `brokerEpoch`, ignoring other fields
 * (storage/.../checkpoint/CleanShutdownFileHandler.java); a missing or
 * non-numeric brokerEpoch makes its read() return none. */
#include "kfsck/sys/clean_shutdown.h"

#include <jansson.h>
#include <string.h>

#include "bytes/error.h"

static bool all_blank(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\n' && p[i] != '\r')
            return false;
    return true;
}

int kf_clean_shutdown_parse(const uint8_t *data, size_t size, kf_clean_shutdown *cs)
{
    memset(cs, 0, sizeof *cs);
    if (!data || size == 0 || all_blank(data, size)) {
        cs->empty = true;
        return KF_OK;
    }
    json_error_t je;
    json_t *root = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "not JSON: %s (byte %d)", je.text, je.position);
    int rc = KF_OK;
    if (!json_is_object(root)) {
        rc = kf_error_set(KF_ERR_CORRUPT, 0, NULL, "not a JSON object");
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
            rc = kf_error_set(KF_ERR_CORRUPT, 0, NULL, "no integer brokerEpoch");
        }
    }
    json_decref(root);
    return rc;
}
