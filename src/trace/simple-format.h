/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * QEMU's simpletrace file, version 4 (docs/format.md, "simpletrace"):
 * little-endian on the hosts we run on (QEMU writes host order).
 *
 *   header   u64 0xffffffffffffffff, u64 magic, u64 version (4)
 *   mapping  u64 0, u64 event id, u32 name length, name bytes
 *   event    u64 1, u64 event id, u64 timestamp_ns, u32 length, u32 pid,
 *            arguments: u64 each, strings u32 length + bytes (no NUL)
 *   dropped  an event record with id ST_DROPPED_ID and one u64: how many
 *            records were dropped before it
 *
 * length counts the event record from its id on (24 + argument bytes).
 */
#ifndef QTRACE_TRACE_SIMPLE_FORMAT_H
#define QTRACE_TRACE_SIMPLE_FORMAT_H

#include <stdint.h>

#define ST_HEADER_ID        0xffffffffffffffffULL
#define ST_MAGIC            0xf2b177cb0aa429b4ULL
#define ST_VERSION          4
#define ST_DROPPED_ID       0xfffffffffffffffeULL
#define ST_TYPE_MAPPING     0
#define ST_TYPE_EVENT       1
#define ST_HEADER_BYTES     24          /* three u64 */
#define ST_EVENT_HEAD_BYTES 24          /* id, timestamp, length, pid */
#define ST_STR_MAX          512         /* QEMU's cap on a string arg */

#endif /* QTRACE_TRACE_SIMPLE_FORMAT_H */
