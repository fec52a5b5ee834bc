#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The END chunk declares the highest stream and translation ids the
# writer gave out (streams=, translations=): on the threaded guest of
# ARCH (5 streams) they match what the chunks hold, read by index-check.py
# (a reader of docs/format.md's layout, not the C reader); with range=
# blocks outside it take ids without a record, so translations= is above
# the highest tb_trans. Then the reader refuses the same trace once its
# END is made to declare less.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest threads "$ARCH"
HERE=$(dirname "$0")
command -v python3 >/dev/null 2>&1 || skip "python3 not installed"

T="$WORK/t.qtr"

# ids TRACE: "STREAMS TRANSLATIONS MAXSTREAM MAXTB" from the file itself.
ids() {
    python3 - "$1" "$HERE/index-check.py" <<'PY'
import importlib.util, struct, sys
spec = importlib.util.spec_from_file_location('ic', sys.argv[2])
ic = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ic)
data = open(sys.argv[1], 'rb').read()
end, streams = {}, set()
for off, kind, flags, vcpu, stream, seq, payload in ic.chunks(data):
    if kind == ic.KIND_END:
        end = dict(l.split('=', 1) for l in payload.decode().splitlines()
                   if '=' in l)
    elif kind == ic.KIND_DATA and vcpu != 0xffffffff:
        streams.add(stream)
print(end.get('streams', '-'), end.get('translations', '-'),
      max(streams), end.get('records', '-'))
PY
}

# max_tb TRACE: the highest id of the tb_trans records.
max_tb() {
    "$QTRACE" dump -e tb_trans "$1" |
        awk '{ for (i = 1; i < NF; i++) if ($i == "tb" && $(i+1) + 0 > m)
                   m = $(i+1) + 0 } END { print m + 0 }'
}

"$QTRACE" record -O compress=off -e 'tb_trans,exec_tb' -o "$T" -- \
    "$GUEST" > "$WORK/out" 2>&1
check_eq "guest exit status" 0 "$?"
set -- $(ids "$T")
check_eq "streams= is the highest stream of a DATA chunk" "$3" "$1"
check_eq "5 threads: streams=5" 5 "$1"
check_eq "translations= is the highest tb_trans id" "$(max_tb "$T")" "$2"
records=$4

# Outside range= blocks take ids without a record: translations= counts
# them too, and the reader takes the trace. The range: main's code.
set -- $(nm -S "$GUEST" | awk '$4 == "main" { print $1, $2; exit }')
[ $# -eq 2 ] || skip "no main symbol in $GUEST (nm -S)"
range=$(printf '0x%x-0x%x' "$((0x$1))" "$((0x$1 + 0x$2))")
"$QTRACE" record -O compress=off -O "range=$range" -e 'tb_trans,exec_tb' \
    -o "$WORK/r.qtr" -- "$GUEST" > "$WORK/out" 2>&1
check_eq "range=$range: guest exit status" 0 "$?"
set -- $(ids "$WORK/r.qtr")
tb=$(max_tb "$WORK/r.qtr")
if [ "$2" -gt "$tb" ]; then
    pass "range=$range: translations=$2 above the highest tb_trans $tb"
else
    fail "range=$range: translations=$2, highest tb_trans $tb"
fi
"$QTRACE" dump "$WORK/r.qtr" > /dev/null 2> "$WORK/err"
check_eq "range=$range: dump reads it" "0:" "$?:$(cat "$WORK/err")"

# The same trace with END rewritten to declare one id less (checksum
# fixed): refused where the id appears.
shrink_end() {
    python3 - "$T" "$2" "$HERE/index-check.py" "$1" <<'PY'
import struct, sys, zlib
src, dst, key = sys.argv[1], sys.argv[2], sys.argv[4]
data = bytearray(open(src, 'rb').read())
off = struct.unpack_from('<I', data, 12)[0]
while off + 32 <= len(data):
    kind, length = struct.unpack_from('<H', data, off + 4)[0], \
        struct.unpack_from('<I', data, off + 16)[0]
    if kind == 3:
        break
    off += 32 + length
lines = data[off + 32:off + 32 + length].decode().splitlines()
out = []
for l in lines:
    k, _, v = l.partition('=')
    out.append(f'{k}={int(v) - 1}' if k == key else l)
payload = ('\n'.join(out) + '\n').encode()
hdr = bytearray(data[off:off + 32])
struct.pack_into('<I', hdr, 16, len(payload))
hdr[20:24] = bytes(4)
struct.pack_into('<I', hdr, 20, zlib.crc32(payload, zlib.crc32(bytes(hdr))))
open(dst, 'wb').write(bytes(data[:off]) + bytes(hdr) + payload)
PY
}
for key in streams translations records; do
    shrink_end "$key" "$WORK/bad.qtr"
    "$QTRACE" dump "$WORK/bad.qtr" > /dev/null 2> "$WORK/err"
    st=$?
    if [ "$st" -ne 0 ] && [ "$(wc -l < "$WORK/err")" -eq 1 ] &&
        grep -q "over the $key=\|than the $key=" "$WORK/err"; then
        pass "END $key= one less: dump refuses it ($(cut -c1-60 "$WORK/err" | sed 's/.*: //'))"
    else
        fail "END $key= one less: dump status $st: $(head -c 200 "$WORK/err")"
    fi
done
rm -f "$T" "$WORK/r.qtr" "$WORK/bad.qtr"
finish
