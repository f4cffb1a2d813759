#!/bin/sh
# exports.sh HEADER...: writes the linker version script of libkfsck.so:
# exactly the kf_* functions the public headers declare are exported; every
# other symbol (internal helpers, other layers' private functions) stays
# local to the library. Static inline functions are not symbols: skipped.
set -eu
echo "KFSCK_0 {"
echo "  global:"
sed -e 's|/\*.*\*/||g' "$@" | grep -v '^[[:space:]]*static' |
    grep -o 'kf_[a-z0-9_]*[[:space:]]*(' | sed 's/[[:space:]]*($//' | sort -u | sed 's/^/    /; s/$/;/'
echo "  local: *;"
echo "};"
