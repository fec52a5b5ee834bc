#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `make demo`: record the bundled aarch64 demo guest under qemu-aarch64,
# then show `qtrace info` and the start of `qtrace dump`.
# Usage: demo.sh BUILD_DIR
set -eu
build=${1:-build}
qtrace="$build/src/cli/qtrace"
guest="$build/tests/guests/demo-aarch64"
trace="$build/demo.qtr"

if [ ! -x "$guest" ]; then
    echo "demo: $guest was not built (aarch64 cross compiler missing?)" >&2
    exit 1
fi

echo "== qtrace record -o $trace -- $guest"
"$qtrace" record -e 'vcpu_*,tb_trans,exec_tb,exec_insn,mem_access,syscall*' \
    -o "$trace" -- "$guest"
echo
echo "== qtrace info $trace"
"$qtrace" info "$trace"
echo
echo "== qtrace dump -e -tb_trans $trace | head -n 40"
"$qtrace" dump -e -tb_trans "$trace" | head -n 40
