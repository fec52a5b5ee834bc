#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# qtrace report --blocks, --insns, --memory and --vcpus on asm-ARCH,
# whose counts are known by construction (asm-ARCH.expect), read back
# as JSON (python3's json) and CSV (python3's csv, and sqlite3's CSV
# import where installed):
# - --vcpus: one stream with the guest's instructions, blocks (the sum
#   of the blocks list), accesses (loads + stores), one system call, and
#   as many records as qtrace info --per-cpu counts for it;
# - --blocks: the three blocks with their executions, instructions and
#   sizes, the loop first; --top=1 keeps one;
# - --memory: the data page and _start with the loads, stores and bytes
#   of load_addrs and store_addrs;
# - --insns: the executions per mnemonic are those of the exec_insn
#   records' disassembly in qtrace dump, summing to the instructions
#   (RISC-V: no decoder in capstone 4, the section says none);
# - --syscalls: exit_group once; every section together as one JSON
#   object; --functions on calls-ARCH gives in JSON what its text says;
# - --format and --top misuse is refused with status 2.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest asm "$ARCH"
command -v python3 > /dev/null 2>&1 || skip "python3 not installed"
cd "$WORK" || exit 1

"$QTRACE" record -q -e 'exec_tb,exec_insn,tb_trans,mem_access,syscall*,image_map' \
    -o r.qtr -- "$GUEST" > /dev/null 2>&1
insns=$(expect_get insns)
loads=$(expect_get loads)
stores=$(expect_get stores)

# bytes LIST: the bytes of an addr:size:count list.
bytes() {
    echo "$1" | tr ',' '\n' | awk -F: '{ n += $2 * $3 } END { print n }'
}
blocks=$(expect_get blocks | tr ',' '\n' | awk -F: '{ n += $2 } END { print n }')
records=$("$QTRACE" info --per-cpu r.qtr | awk '/^vcpu 0 stream/ {
    for (i = 5; i <= NF; i++) { split($i, kv, "="); n += kv[2] } }
    END { print n }')

"$QTRACE" report --vcpus --format=json r.qtr > vcpus.json 2> err
check_eq "--vcpus json: status" "0 " "$? $(cat err)"
check_eq "--vcpus: vcpu stream insns blocks accesses syscalls records" \
    "0 1 $insns $blocks $((loads + stores)) 1 $records" \
    "$(python3 -c 'import json, sys
rows = json.load(open(sys.argv[1]))
assert len(rows) == 1, rows
r = rows[0]
print(r["vcpu"], r["stream"], r["insns"], r["blocks"], r["accesses"],
      r["syscalls"], r["records"])' vcpus.json)"

"$QTRACE" report --blocks --format=csv r.qtr > blocks.csv 2> err
check_eq "--blocks csv: status" "0 " "$? $(cat err)"
# want_blocks: "pc execs insns size" per block of the .expect file.
expect_get blocks | tr ',' '\n' > counts
expect_get block_ranges | tr ',' '\n' > ranges
want=$(paste -d' ' counts ranges | while read -r bc br; do
    s=${br%%-*} rest=${br#*-}
    printf '0x%x %d %d %d\n' $((${bc%%:*})) "${bc#*:}" "${rest#*:}" \
        $((${rest%%:*} - s))
done | sort)
got=$(python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
for r in rows:
    assert r["disasm"].count("0x") >= int(r["insns"]), r
    assert int(r["insns_executed"]) == int(r["execs"]) * int(r["insns"])
    print(r["pc"], r["execs"], r["insns"], r["size"])' blocks.csv | sort)
check_eq "--blocks: pc, executions, instructions, size" "$want" "$got"
check_eq "--blocks: the loop first" "$(printf '0x%x' "$(expect_get loop_pc)")" \
    "$(sed -n '2s/,.*//p' blocks.csv)"
check_eq "--blocks --top=1: one row" 2 \
    "$("$QTRACE" report --blocks --top=1 --format=csv r.qtr | wc -l)"
if command -v sqlite3 > /dev/null 2>&1; then
    check_eq "sqlite3 imports the CSV: sum of execs" "$blocks" \
        "$(sqlite3 :memory: '.import --csv blocks.csv b' \
           'select sum(execs) from b')"
fi

"$QTRACE" report --memory --format=json r.qtr > memory.json 2> err
check_eq "--memory json: status" "0 " "$? $(cat err)"
lb=$(bytes "$(expect_get load_addrs)")
sb=$(bytes "$(expect_get store_addrs)")
page=$(printf '0x%x' $(($(expect_get load_addrs | cut -d: -f1) & ~4095)))
check_eq "--memory: by page and by function" \
    "page $page $loads $stores $lb $sb
function _start $loads $stores $lb $sb" \
    "$(python3 -c 'import json, sys
for r in json.load(open(sys.argv[1])):
    print(r["by"], r["name"], r["loads"], r["stores"], r["load_bytes"],
          r["store_bytes"])' memory.json)"

"$QTRACE" report --insns --format=json r.qtr > insns.json 2> err
st=$?
if [ "$ARCH" = riscv64 ]; then
    check_eq "--insns on riscv64: none, status 1" "1 []" \
        "$st $(tr -d ' \n' < insns.json)"
    check_grep "--insns: why" 'insns: none \(no disassembler for riscv64' err
else
    check_eq "--insns json: status" "0 " "$st $(cat err)"
    "$QTRACE" dump -e exec_insn r.qtr | sed 's/.* | //' |
        awk '{ n[$1]++ } END { for (m in n) print m, n[m] }' | sort > want
    python3 -c 'import json, sys
rows = json.load(open(sys.argv[1]))
for r in rows:
    if r["by"] == "mnemonic":
        print(r["name"], r["count"])' insns.json | sort > got
    check_eq "--insns: per mnemonic, as exec_insn's disassembly" \
        "$(cat want)" "$(cat got)"
    check_eq "--insns: mnemonics sum to the instructions" "$insns" \
        "$(awk '{ n += $2 } END { print n }' got)"
    check_eq "--insns: a class for each instruction" "ok" \
        "$(python3 -c 'import json, sys
rows = json.load(open(sys.argv[1]))
n = sum(r["count"] for r in rows if r["by"] == "class")
print("ok" if n >= int(sys.argv[2]) else n)' insns.json "$insns")"
fi

"$QTRACE" report --syscalls --format=csv r.qtr > sys.csv
check_eq "--syscalls csv" "syscall,number,calls,errors exit_group 1 0" \
    "$(python3 -c 'import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
print(",".join(rows[0]), rows[1][0], rows[1][2], rows[1][3])' sys.csv)"

"$QTRACE" report --format=json r.qtr > all.json 2> err
check_eq "every section as one JSON object" \
    "functions syscalls lib-events blocks insns memory vcpus" \
    "$(python3 -c 'import json, sys
print(" ".join(json.load(open(sys.argv[1]))))' all.json)"
# functions and lib-events (and insns on riscv64) have nothing here.
n_empty=2
[ "$ARCH" = riscv64 ] && n_empty=3
check_eq "empty sections said on stderr" "$n_empty" \
    "$(grep -c '^qtrace report: .*: none (' err)"

for text in --blocks --memory --vcpus; do
    "$QTRACE" report "$text" r.qtr > text.out 2> err
    check_eq "$text as text: status" "0 " "$? $(cat err)"
done

# --functions: the JSON rows are the text's.
use_guest calls "$ARCH"
"$QTRACE" record -q -e 'func_*,image_map' -o f.qtr -- "$GUEST" \
    > /dev/null 2>&1
"$QTRACE" report --functions f.qtr | tail -n +3 |
    awk '{ print $1, $2, $3, $4 }' | sort > want
"$QTRACE" report --functions --format=json f.qtr | python3 -c '
import json, sys
for r in json.load(sys.stdin):
    print(r["total"], r["self"], r["calls"], r["function"])' | sort > got
check_eq "--functions json: the text's rows" "$(cat want)" "$(cat got)"
n=$(wc -l < got)
[ "$n" -ge 5 ] && pass "$n functions" || fail "$n functions"

# Misuse.
# misuse ARGS...: status 2, the first line names the problem.
misuse() {
    "$QTRACE" report "$@" r.qtr > out 2> err
    check_eq "report $*: status 2, nothing out" "2 0" "$? $(wc -c < out)"
}
misuse --format=xml
check_grep "--format=xml: said" "^qtrace report: --format=xml: unknown format" err
misuse --format=csv
misuse --format=csv --blocks --memory
check_grep "--format=csv: one section" "a CSV file holds one table" err
misuse --top=x --blocks
finish
