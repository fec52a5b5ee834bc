#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# qtrace record fails when its trace is not whole: -o /dev/full (every
# write fails: "No space left on device") and a file cut by a file size
# limit (writes fail with EFBIG) make a guest that exits 0 give status 1
# and one line saying the trace is incomplete; a whole trace gives the
# guest's status and no line. ARCH is the host's: the guest is the
# host's own /bin/true, whose status is 0.
ARCH=$1
. "$(dirname "$0")/lib.sh"
need_qemu "$ARCH"
TRUE=$(command -v true)
case "$TRUE" in /*) ;; *) TRUE=/bin/true ;; esac
[ -x "$TRUE" ] || skip "no $TRUE"

"$QTRACE" record -q -o "$WORK/ok.qtr" -- "$TRUE" 2> "$WORK/err"
check_eq "whole trace: status" 0 "$?"
check_eq "whole trace: messages" "" "$(cat "$WORK/err")"

"$QTRACE" record -o /dev/full -- "$TRUE" 2> "$WORK/err"
check_eq "-o /dev/full: status" 1 "$?"
# The header is written when the plugin loads, so the failure shows then
# (QEMU refuses the plugin) or, for a later write, in record's verdict.
check_grep "-o /dev/full: the failure is named" \
    "(out=/dev/full: No space left on device|^qtrace record: /dev/full: the trace is incomplete)" \
    "$WORK/err"

# A file size limit: the write past it fails (SIGXFSZ ignored, so the
# writer gets EFBIG), as on a full disk.
(
    trap '' XFSZ
    ulimit -f 16 2>/dev/null || exit 77
    exec "$QTRACE" record -e 'tb_trans,exec_tb' -O compress=off \
        -o "$WORK/cut.qtr" -- "$TRUE" 2> "$WORK/err"
)
st=$?
[ "$st" -eq 77 ] && skip "ulimit -f not available"
check_eq "file size limit: status" 1 "$st"
check_grep "file size limit: record says the trace is incomplete" \
    "^qtrace record: .*cut.qtr: the trace is incomplete" "$WORK/err"
"$QTRACE" info "$WORK/cut.qtr" > "$WORK/info" 2>&1
check_grep "file size limit: the trace reads to its last whole chunk" \
    '^end: missing \((killed; )?no END chunk' "$WORK/info"
finish
