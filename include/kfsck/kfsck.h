/* kfsck.h: the public API of libkfsck, a reader of Apache Kafka's on-disk data
 * that needs no broker. The library never prints or exits: every function
 * returns a kf_err (or a result) and reports findings through callbacks.
 *
 * Include this one header; it pulls in the rest. */
#ifndef KFSCK_KFSCK_H
#define KFSCK_KFSCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KFSCK_VERSION "0.1.0"

#include "kfsck/common.h"

#include "kfsck/cursor.h"
#include "kfsck/crc.h"
#include "kfsck/codec.h"
#include "kfsck/file.h"
#include "kfsck/batch.h"
#include "kfsck/segment.h"
#include "kfsck/names.h"
#include "kfsck/dirs.h"
#include "kfsck/index.h"
#include "kfsck/snapshot.h"
#include "kfsck/checkpoint.h"
#include "kfsck/coord.h"
#include "kfsck/producer_state.h"
#include "kfsck/repair.h"
#include "kfsck/replay.h"
#include "kfsck/partition.h"
#include "kfsck/stats.h"
#include "kfsck/verify.h"
#include "kfsck/scan.h"
#include "kfsck/sink.h"
#include "kfsck/txns.h"

#endif
