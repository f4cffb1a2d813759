/* uuid.c: Kafka's Uuid text form (Uuid.toString / Uuid.fromString): 22
 * characters of URL-safe base64 without padding (checkpoint.h). */
#include <stdbool.h>
#include <stdint.h>

#include "bytes/error.h"
#include "format/checkpoint_text.h"
#include "kfsck/sys/checkpoint.h"

static const char B64URL[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

void kf_uuid_to_b64(const uint8_t uuid[16], char out[23])
{
    size_t o = 0;
    int i = 0;
    for (; i + 3 <= 15; i += 3) {
        uint32_t v = (uint32_t)uuid[i] << 16 | (uint32_t)uuid[i + 1] << 8 | uuid[i + 2];
        out[o++] = B64URL[v >> 18];
        out[o++] = B64URL[(v >> 12) & 63];
        out[o++] = B64URL[(v >> 6) & 63];
        out[o++] = B64URL[v & 63];
    }
    /* one byte left (15 = 5 * 3): two characters, no padding */
    uint32_t v = (uint32_t)uuid[15] << 16;
    out[o++] = B64URL[v >> 18];
    out[o++] = B64URL[(v >> 12) & 63];
    out[o] = 0;
}

static int b64url_val(uint8_t ch)
{
    if (ch >= 'A' && ch <= 'Z')
        return ch - 'A';
    if (ch >= 'a' && ch <= 'z')
        return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9')
        return ch - '0' + 52;
    if (ch == '-')
        return 62;
    if (ch == '_')
        return 63;
    return -1;
}

/* Like java.util.Base64's URL decoder, the 4 unused low bits of the last
 * character are not required to be zero. */
/* The decoding of kf_uuid_from_b64: 0, or -1 when s is not one. */
static int uuid_from_b64(const char *s, size_t len, uint8_t uuid[16])
{
    if (!s || len != 22)
        return -1;
    uint32_t acc = 0;
    int bits = 0, o = 0;
    for (size_t i = 0; i < 22; i++) {
        int v = b64url_val((uint8_t)s[i]);
        if (v < 0)
            return -1;
        acc = (acc << 6 | (uint32_t)v) & 0xffffff;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (o < 16)
                uuid[o++] = (uint8_t)(acc >> bits);
        }
    }
    return o == 16 ? 0 : -1;
}

int kf_uuid_from_b64(const char *s, size_t len, uint8_t uuid[16])
{
    if (uuid_from_b64(s, len, uuid) == 0)
        return KF_OK;
    return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "not a Kafka Uuid (22 characters of URL-safe base64)");
}

/* Uuid.fromString: 22 characters, or 24 ending in "==" (the decoder takes padding). */
int kf_uuid_parse_java(const uint8_t *s, size_t len, uint8_t uuid[16])
{
    if (len == 24 && s[22] == '=' && s[23] == '=')
        len = 22;
    return kf_uuid_from_b64((const char *)s, len, uuid);
}
