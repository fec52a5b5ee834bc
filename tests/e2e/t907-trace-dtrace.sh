#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The dtrace backend: readelf -n on trace-events-demo-dtrace lists one
# stapsdt note per event that is not "disable", provider 'demo', with a
# semaphore, and arguments whose count, sizes and signedness follow the
# types in trace-events (a table here, not the generator's). The .d file
# declares the same probes and systemtap's own dtrace tool accepts it; the
# .stp wrapper names every event and argument, in order, for the binary.
# The probes are nops until a tracer attaches: the program runs as usual.
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/e2e/bpf-lib.sh
. "$(dirname "$0")/bpf-lib.sh"
. "$(dirname "$0")/trace-lib.sh"

BIN="$DEMO_DIR/trace-events-demo-dtrace"
[ -x "$BIN" ] ||
    skip "trace-events-demo-dtrace not built (no sys/sdt.h, systemtap-sdt-dev, when configuring)"
command -v readelf > /dev/null || skip "readelf not installed (binutils)"
command -v python3 > /dev/null || skip "python3 not installed"

# What trace-events says: "name size@ size@ ..." per live event, with
# sdt's argument sizes (negative: signed). vcpu adds a first pointer.
expected_probes() {
    python3 - "$DEMO_SRC/trace-events" <<'PY'
import re, sys
size = {'int': -4, 'unsigned': 4, 'uint32_t': 4, 'int32_t': -4,
        'uint64_t': 8, 'int64_t': -8, 'long': -8, 'size_t': 8,
        'int8_t': -1, 'uint8_t': 1, 'bool': 1, 'int16_t': -2,
        'uint16_t': 2}
for line in open(sys.argv[1]):
    m = re.match(r'([a-z ]*?)(\w+)\((.*)\) "', line)
    if not m or 'disable' in m.group(1).split():
        continue
    args = [a.strip() for a in m.group(3).split(',')]
    args = [] if args == ['void'] else args
    sizes = [8] if 'vcpu' in m.group(1).split() else []
    for a in args:
        t = a.rsplit(None, 1)[0] if '*' not in a else '*'
        sizes.append(8 if t == '*' else size[t])
    print(m.group(2), ' '.join('%d@' % s for s in sizes))
PY
}

# What readelf -n says: "name size@ ..." per stapsdt note of provider demo.
readelf_probes() {
    readelf -n "$1" | python3 -c '
import re, sys
prov = name = None
for line in sys.stdin:
    line = line.strip()
    if line.startswith("Provider:"):
        prov = line.split()[1]
    elif line.startswith("Name:"):
        name = line.split()[1]
    elif line.startswith("Location:"):
        sema = re.search(r"Semaphore: (0x[0-9a-f]+)", line)
        if prov == "demo" and (not sema or int(sema.group(1), 16) == 0):
            print(name, "NO-SEMAPHORE")
    elif line.startswith("Arguments:") and prov == "demo":
        print(name, " ".join(re.findall(r"(-?\d+@)\S+", line)))
' | sort
}

expected_probes | sort > "$WORK/want"
readelf_probes "$BIN" > "$WORK/got"
readelf -n "$BIN" | awk '/Provider:/ { p = $2 } /Name:/ && p == "demo" { print $2 }' |
    sort > "$WORK/names"
check_eq "one stapsdt note per live event" \
    "$(cut -d' ' -f1 "$WORK/want" | tr '\n' ' ')" \
    "$(tr '\n' ' ' < "$WORK/names")"
# Events without arguments: no Arguments line, so add them back empty.
for n in $(cut -d' ' -f1 "$WORK/want"); do
    grep -q "^$n " "$WORK/got" || echo "$n " >> "$WORK/got"
done
sort -o "$WORK/got" "$WORK/got"
check_eq "argument sizes as trace-events declares them" \
    "$(sed 's/ *$//' "$WORK/want")" "$(sed 's/ *$//' "$WORK/got")"
check_eq "every probe has a semaphore" 0 \
    "$(grep -c NO-SEMAPHORE "$WORK/got")"

# The program itself: probes are nops, nothing else changes.
demo dtrace --trace 'demo_*'
check_eq "dtrace build: status" 0 "$RC"
check_eq "dtrace build: nothing on stderr" "" "$(cat "$WORK/err")"

# --format=d: the same probes, and systemtap's dtrace turns it into a
# header of DEMO_<EVENT> macros.
D="$DEMO_DIR/trace-demo.d"
sed -n 's/^probe \([a-z_]*\)(\(.*\));$/\1 \2/p' "$D" |
    awk '{ n = $1; $1 = ""; c = ($0 ~ /[a-z]/) ? split($0, x, ",") : 0;
           print n, c }' | sort > "$WORK/d.got"
awk '{ print $1, NF - 1 }' "$WORK/want" | sort > "$WORK/d.want"
check_eq ".d: probes and argument counts" "$(cat "$WORK/d.want")" \
    "$(cat "$WORK/d.got")"
check_grep ".d: provider named after the group" '^provider demo \{$' "$D"
if command -v dtrace > /dev/null; then
    dtrace -h -s "$D" -o "$WORK/d.h" > "$WORK/dtrace.err" 2>&1
    check_eq "dtrace -h accepts the .d file" 0 "$?"
    check_eq "dtrace -h: one macro per probe" "$(wc -l < "$WORK/want")" \
        "$(grep '^#define DEMO_DEMO_[A-Z_]*(' "$WORK/d.h" | grep -vc _ENABLED)"
fi

# --format=stap: probe qemu.BINARY.event = process("BIN").mark("event")
# with each argument by name.
S="$DEMO_DIR/trace-demo.stp"
python3 - "$DEMO_SRC/trace-events" "$S" "$BIN" > "$WORK/stap.check" <<'PY'
import re, sys
want = []
for line in open(sys.argv[1]):
    m = re.match(r'([a-z ]*?)(\w+)\((.*)\) "', line)
    if not m or 'disable' in m.group(1).split():
        continue
    args = [a.strip() for a in m.group(3).split(',')]
    names = [] if args == ['void'] else [re.split(r'[ *]', a)[-1] for a in args]
    if 'vcpu' in m.group(1).split():
        names = ['__cpu'] + names
    want.append((m.group(2), names))
text = open(sys.argv[2]).read()
got = []
for m in re.finditer(r'probe qemu\.trace_events_demo_dtrace\.(\w+) = '
                     r'process\("([^"]*)"\)\.mark\("(\w+)"\)\s*\{([^}]*)\}',
                     text):
    if m.group(2) != sys.argv[3] or m.group(1) != m.group(3):
        print('bad probe point', m.group(0).splitlines()[0])
    lines = re.findall(r'(\w+) = \$arg(\d+);', m.group(4))
    if [int(n) for _, n in lines] != list(range(1, len(lines) + 1)):
        print('arguments out of order in', m.group(1))
    got.append((m.group(1), [a for a, _ in lines]))
print('same' if got == want else 'want %s got %s' % (want, got))
PY
check_eq ".stp: every event and argument name" same "$(cat "$WORK/stap.check")"
# A real tracer: bpftrace raises the semaphores of the running program,
# so trace_foo() calls out with no --trace at all, and reads every
# argument as the demo echoes it. Where bpftrace cannot attach (no BPF
# or uprobes for this user), it says so and the rest stands.
if command -v bpftrace > /dev/null; then
    U="usdt:$BIN:demo"
    # BEGIN runs once every probe is attached.
    prog="BEGIN { printf(\"ready\\n\"); }
        $U:demo_start { printf(\"demo_start name %s jobs %d\\n\", str(arg0), arg1); }
        $U:demo_job { printf(\"demo_job idx %u cost 0x%lx last %d\\n\", arg0, arg1, arg2); }
        $U:demo_buffer { printf(\"demo_buffer buf 0x%lx len %lu\\n\", arg0, arg1); }
        $U:demo_signed { printf(\"demo_signed delta %ld big %ld small %d\\n\", arg0, arg1, arg2); }
        $U:demo_cpu { printf(\"demo_cpu cpu=0x%lx n %u\\n\", arg0, arg1); }
        $U:demo_done { printf(\"demo_done done\\n\"); }"
    (cd "$WORK" && exec "$BIN" --wait-file "$WORK/go" --jobs 3) \
        > "$WORK/out" 2> "$WORK/err" &
    PID=$!
    bpf_start "$prog" -p "$PID"
    attached=$(grep -c '^ready' "$WORK/bpf")
    touch "$WORK/go"
    wait "$PID"
    wait "$BPF"
    if [ "$attached" -eq 1 ]; then
        check_eq "bpftrace: every probe with its arguments = the echo" \
            "$(cat "$WORK/out")" "$(grep '^demo_' "$WORK/bpf")"
    else
        echo "NOTE bpftrace cannot attach here: $(grep -m1 . "$WORK/bpf.err")"
    fi
fi
if command -v stap > /dev/null; then
    printf 'probe qemu.trace_events_demo_dtrace.demo_job { println(idx) }\n' \
        > "$WORK/use.stp"
    stap -p2 -I "$DEMO_DIR" "$WORK/use.stp" > /dev/null 2>&1
    check_eq "stap -p2 resolves the wrapper" 0 "$?"
fi
finish
