/* common_opts.c: option values shared by several commands. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

#include "cli/cli.h"

int parse_size(const char *s, uint64_t *result)
{
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    uint64_t mul = 1;
    switch (*end) {
    case 0: break;
    case 'k': case 'K': mul = 1ull << 10; end++; break;
    case 'm': case 'M': mul = 1ull << 20; end++; break;
    case 'g': case 'G': mul = 1ull << 30; end++; break;
    default: return -1;
    }
    if (*end == 'i' || *end == 'B')
        end++;
    if (*end == 'B')
        end++;
    if (*end)
        return -1;
    if (v > UINT64_MAX / mul)
        return -1;
    *result = v * mul;
    return 0;
}
