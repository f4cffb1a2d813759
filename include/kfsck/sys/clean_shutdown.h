/* clean_shutdown.h: the .kafka_cleanshutdown file a broker leaves in each log
 * dir when it shuts down cleanly (Kafka's CleanShutdownFileHandler). Its
 * presence is what the broker goes by; since 3.7 (KIP-966) it holds
 * {"version":0,"brokerEpoch":N}, older brokers left it empty. Parsed with
 * Jansson; nothing is printed. */
#ifndef KFSCK_CLEAN_SHUTDOWN_H
#define KFSCK_CLEAN_SHUTDOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KF_CLEAN_SHUTDOWN_FILE ".kafka_cleanshutdown"

typedef struct kf_clean_shutdown {
    bool empty;               /* no content (a broker before 3.7) */
    bool has_version;
    int32_t version;
    bool has_broker_epoch;    /* what the broker's read() returns: a number in brokerEpoch */
    int64_t broker_epoch;
} kf_clean_shutdown;

/* Parse the file's bytes. KF_OK with *cs filled (an empty file: empty);
 * KF_ERR_CORRUPT, the reason in the last error, when the content is not one
 * JSON object (duplicate keys refused) or brokerEpoch is not an integer:
 * the broker then has no epoch but still counts the shutdown as clean. */
int kf_clean_shutdown_parse(const uint8_t *data, size_t size, kf_clean_shutdown *cs);

#ifdef __cplusplus
}
#endif

#endif
