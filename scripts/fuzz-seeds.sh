#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Write seed inputs for the fuzz targets (tests/fuzz/) from real runs: the
# test guests recorded under QEMU through the plugin with several event
# sets and encodings, their etrace files, the key=value parts of those
# traces, the guests' ELF files, the catalog and a few plugin option
# lists. Only small inputs are kept (a fuzzer mutates small inputs
# fastest). The committed seeds (tests/fuzz/seeds/) were made with it.
# Usage: fuzz-seeds.sh BUILD_DIR OUT_DIR    (writes OUT_DIR/<target>/)
set -eu

BUILD=${1:?usage: fuzz-seeds.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: fuzz-seeds.sh BUILD_DIR OUT_DIR}
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$BUILD" && pwd)
QTRACE=$BUILD/src/cli/qtrace
GUESTS=$BUILD/tests/guests
MAX_BYTES=32768

for t in trace etrace catalog kv options elf; do
    mkdir -p "$OUT/$t"
done

# keep FILE TARGET NAME: copy FILE as a seed if it is small enough.
keep() {
    if [ -s "$1" ] && [ "$(wc -c < "$1")" -le "$MAX_BYTES" ]; then
        cp "$1" "$OUT/$2/$3"
    else
        echo "fuzz-seeds: $3: missing or over $MAX_BYTES bytes, left out" >&2
    fi
}

# record NAME GUEST EVENTS [OPTION...]: a trace of GUEST as a seed (of
# both trace targets: fuzz-trace-nocrc starts from the seeds of
# fuzz-trace); an etrace file too when an option asks for one.
record() {
    name=$1 guest=$GUESTS/$2 arch=${2#*-} events=$3
    shift 3
    arch=${arch#dyn-}
    if [ ! -x "$guest" ] || ! command -v "qemu-$arch" >/dev/null 2>&1; then
        echo "fuzz-seeds: $name: guest or QEMU missing, left out" >&2
        return 0
    fi
    opts=""
    for o in "$@"; do
        opts="$opts -O $o"
    done
    # Run from a copy, so that the paths a trace names (META binary,
    # image_map) are the temporary directory's, not the build tree's.
    mkdir -p "$WORK/run"
    cp "$guest" "$WORK/run/"
    # shellcheck disable=SC2086
    (cd "$WORK/run" && env -i "$QTRACE" record -q -f -e "$events" $opts \
        -o "$WORK/$name.qtr" -- "./${guest##*/}" > /dev/null 2>&1) || true
    keep "$WORK/$name.qtr" trace "$name.qtr"
}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/qtrace-seeds.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# Traces: the default encoding (packed, zstd), packed alone, raw; several
# event sets and architectures.
record asm-x86_64-default asm-x86_64 'tb_trans,exec_tb,mem_access'
record asm-x86_64-packed asm-x86_64 'tb_trans,exec_tb,mem_access' \
    encoding=packed compress=off
record asm-x86_64-raw asm-x86_64 'tb_trans,exec_tb,mem_access' \
    encoding=raw compress=off
record asm-x86_64-insn asm-x86_64 'tb_trans,exec_insn,tb_count' \
    encoding=raw compress=off
record asm-aarch64-default asm-aarch64 'tb_trans,exec_tb,mem_access'
record asm-riscv64-default asm-riscv64 'tb_trans,exec_tb,mem_access'
record asm-arm-packed asm-arm 'tb_trans,exec_tb,mem_access' \
    encoding=packed compress=off
record syscalls-x86_64 syscalls-x86_64 'syscall,syscall_ret' \
    encoding=raw compress=off
record calls-dyn-x86_64 calls-dyn-x86_64 'func_*' compress=off
# Host clock stamps and order points of five threads (dump --merge).
record threads-x86_64-timeline threads-x86_64 'syscall,syscall_ret,order,vcpu_*' \
    timeline=on encoding=raw compress=off
record asm-x86_64-etrace asm-x86_64 'exec_tb' \
    "etrace=$WORK/asm-x86_64.etr" etrace-flags=all
record asm-aarch64-etrace asm-aarch64 'exec_tb' \
    "etrace=$WORK/asm-aarch64.etr" etrace-flags=exec,mem
keep "$WORK/asm-x86_64.etr" etrace asm-x86_64-all.etr
keep "$WORK/asm-aarch64.etr" etrace asm-aarch64-exec-mem.etr
# The reader opens etrace files too.
keep "$WORK/asm-x86_64.etr" trace asm-x86_64-all.etr

# A trace cut inside a chunk: the reading up to the cut.
if [ -s "$WORK/asm-x86_64-raw.qtr" ]; then
    head -c 3000 "$WORK/asm-x86_64-raw.qtr" > "$WORK/cut.qtr"
    keep "$WORK/cut.qtr" trace asm-x86_64-cut.qtr
fi

# key=value text: the META keys and the END chunk of a trace.
if [ -s "$WORK/asm-x86_64-raw.qtr" ]; then
    python3 - "$WORK/asm-x86_64-raw.qtr" "$OUT/kv" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
off = struct.unpack_from("<I", data, 12)[0]
while off + 32 <= len(data):
    magic, kind, flags, vcpu, stream, length = struct.unpack_from(
        "<IHHIII", data, off)
    payload = data[off + 32:off + 32 + length]
    if kind == 1:
        open(sys.argv[2] + "/meta-keys.txt", "wb").write(
            payload.split(b"\n\n")[0] + b"\n")
    elif kind == 3:
        open(sys.argv[2] + "/end.txt", "wb").write(payload)
    off += 32 + length
PY
fi

# The catalog: the project's own, and the one etrace files are read with.
keep "$SRC/trace-events" catalog trace-events
cat > "$OUT/catalog/small" <<'TE'
# comment
disable mem_x(uint64_t pc, uint8_t size, const char *dev) "pc 0x%" PRIx64 " %u %s"
blob(const uint8_t *code, int32_t n, bool ok) "n %d ok %u"
void_ev(void) ""
TE

# Plugin options, as QEMU passes them (comma separated).
printf '%s' 'out=t.qtr,events=mem_*,-mem_access,chunk=64k,buffer=1m' \
    > "$OUT/options/events-chunk"
printf '%s' 'log=stderr,range=0x1000-0x2000,ifilter=0x400000+0x100,afilter=0x10:0x20' \
    > "$OUT/options/filters"
printf '%s' 'etrace=unix:/x.sock,etrace-flags=exec;mem;disas,etrace-wait=5,etrace-stall=1,etrace-peer-lost=stop' \
    > "$OUT/options/etrace"
printf '%s' 'encoding=raw,compress=zstd:3,lossy=on,flush=50,status=s.txt,uftrace=ud' \
    > "$OUT/options/encodings"
printf '%s\n' '# patterns' 'tb_*' '-tb_count' 'func_entry;func_exit' \
    > "$OUT/options/events-file"

# ELF files: small guests of each architecture, a dynamic one (PLT), and
# one stripped of its symbols (the debug-file search). Debug sections go
# (they name the build tree and are not what the loader reads).
# strip_with FILE: the binutils strip that knows FILE's architecture.
strip_with() {
    case $1 in
    *-arm) echo arm-linux-gnueabihf-strip ;;
    *-aarch64) echo aarch64-linux-gnu-strip ;;
    *-riscv64) echo riscv64-linux-gnu-strip ;;
    *) echo strip ;;
    esac
}
for g in asm-x86_64 asm-arm asm-riscv64 calls-dyn-x86_64 calls-dyn-arm; do
    [ -f "$GUESTS/$g" ] || continue
    if "$(strip_with "$g")" --strip-debug -o "$WORK/$g" "$GUESTS/$g"; then
        keep "$WORK/$g" elf "$g"
    fi
done
if [ -f "$GUESTS/asm-x86_64" ]; then
    strip -o "$WORK/asm-x86_64-stripped" "$GUESTS/asm-x86_64"
    keep "$WORK/asm-x86_64-stripped" elf asm-x86_64-stripped
fi
echo "fuzz-seeds: wrote $(find "$OUT" -type f | wc -l) seeds under $OUT"
