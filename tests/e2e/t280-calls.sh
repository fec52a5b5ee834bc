#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Function calls on the calls guest of ARCH (tests/guests/calls.c, whose
# header gives the call tree): the func_entry/func_exit records of every
# vCPU stream nest properly and close, and those of the guest's own
# functions, named from the guest's symbol table (readelf), form the
# expected tree, with the right frames unwound by the longjmp and the
# right depths after it and after the signal handler. Also: image_map
# names the program with a range holding its entry point.
ARCH=$1
. "$(dirname "$0")/lib.sh"
use_guest calls "$ARCH"
command -v readelf >/dev/null 2>&1 || skip "readelf not installed (binutils)"

T="$WORK/t.qtr"
"$QTRACE" record -e 'func_*,image_map,tb_trans,exec_tb' -o "$T" -- \
    "$GUEST" > "$WORK/out" 2> "$WORK/err"
check_eq "guest exit status" 0 "$?"
check_grep "guest output" '^calls: ok$' "$WORK/out"
"$QTRACE" dump -e 'func_*,image_map,exec_tb' "$T" > "$WORK/dump"
check_eq "dump exit status" 0 "$?"

# The guest's functions: "ADDRESS NAME". On arm, bit 0 of a symbol or
# of the entry point says Thumb: cleared to get the address. aarch64's
# static start code reaches main through __wrap_main (nop; b main), a
# plain branch to main's entry: a tail call, so main has its own frame.
thumb_bit=0
[ "$ARCH" = arm ] && thumb_bit=1
FUNCS='main|fact|apply|add_one|twice|jump_outer|jump_middle|jump_inner'
FUNCS="$FUNCS|after_jump|raise_signal|on_signal|in_handler|run_threads"
FUNCS="$FUNCS|worker|work_item|deep"
# guest_syms RE: "ADDRESS NAME" of the guest's functions matching RE.
guest_syms() {
    readelf -sW "$GUEST" | awk -v re="^($1)\$" -v tb="$thumb_bit" '
        $4 == "FUNC" && $8 ~ re {
            v = 0; h = tolower($2)
            for (i = 1; i <= length(h); i++)
                v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
            if (tb && v % 2) v--
            printf "0x%x %s\n", v, $8
        }'
}
guest_syms "$FUNCS" > "$WORK/syms"
check_eq "guest functions found by readelf" 16 \
    "$(awk '{ print $2 }' "$WORK/syms" | sort -u | wc -l)"

# nesting DUMP: one line per stream, "vcpu N: ok" when each func_entry
# opens depth+1, each func_exit closes the innermost open frame (same pc
# and depth), a tail-call entry directly follows the exit of the frame it
# replaces, and nothing stays open; else what went wrong, and when.
nesting() {
    awk '$3 == "func_entry" || $3 == "func_exit" {
        v = $1; n = sp[v] + 0; d = $9 + 0; k = $11 + 0
        if ($3 == "func_entry") {
            if (d != n + 1) bad[v] = bad[v] " entry-depth@" $2
            if (k == 1 && last[v] != "exit2") bad[v] = bad[v] " tail@" $2
            sp[v] = d; pc[v, d] = $5
        } else {
            if (d != n || pc[v, d] != $5) bad[v] = bad[v] " exit@" $2
            sp[v] = d - 1
        }
        last[v] = ($3 == "func_exit" && k == 2) ? "exit2" : ""
        seen[v] = 1
    }
    END {
        for (v in seen) {
            if (sp[v] != 0) bad[v] = bad[v] " open=" sp[v]
            print "vcpu " v ":" (bad[v] == "" ? " ok" : bad[v])
        }
    }' "$1" | sort
}

nesting "$WORK/dump" > "$WORK/nesting"
check_eq "streams with call records" 3 "$(wc -l < "$WORK/nesting")"
check_eq "streams whose records do not nest" 0 \
    "$(grep -cv ': ok$' "$WORK/nesting")"
grep -v ': ok$' "$WORK/nesting" | head -3 | sed 's/^/    /'

# guest_tree VCPU [SYMS DUMP]: the guest's own frames of one vCPU, in
# entry order: "LEVEL NAME STEP KIND": LEVEL counts the open guest frames
# around it, STEP is its depth minus its guest parent's (1: called
# directly, more: libc in between), KIND its func_exit kind. A guest
# frame left open under a new entry of the same depth, or an exit that
# is not the innermost guest frame's, prints an ERROR line.
guest_tree() {
    awk -v want="$1" 'NR == FNR { name[$1] = $2; next }
        $1 == want && ($3 == "func_entry" || $3 == "func_exit") &&
        ($5 in name) {
            d = $9 + 0
            if ($3 == "func_entry") {
                if (n > 0 && dep[n] >= d) print "ERROR open " nm[n] " at " $2
                base = n > 0 ? dep[n] : d
                n++; nm[n] = name[$5]; dep[n] = d; idx[n] = ++lines
                line[lines] = (n - 1) " " name[$5] " " (d - base)
            } else {
                if (n == 0 || nm[n] != name[$5] || dep[n] != d) {
                    print "ERROR exit " name[$5] " at " $2
                } else {
                    line[idx[n]] = line[idx[n]] " " $11; n--
                }
            }
        }
        END { for (i = 1; i <= lines; i++) print line[i] }' \
        "${2:-$WORK/syms}" "${3:-$WORK/dump}"
}

# From the header of tests/guests/calls.c. on_signal sits under libc's
# raise (STEP 2 or more); after the longjmp, after_jump is again one
# below jump_outer, and after the handler, run_threads one below main.
cat > "$WORK/expect-main" <<'EOF'
0 main 0 0
1 fact 1 0
2 fact 1 0
3 fact 1 0
4 fact 1 0
5 fact 1 0
1 apply 1 0
2 add_one 1 0
1 apply 1 0
2 twice 1 0
1 jump_outer 1 0
2 jump_middle 1 1
3 jump_inner 1 1
2 after_jump 1 0
1 raise_signal 1 0
2 on_signal [2-9] 0
3 in_handler 1 0
1 run_threads 1 0
EOF
printf '0 worker 0 0\n1 work_item 1 0\n' > "$WORK/expect-worker"

# match_tree WHAT EXPECTED ACTUAL: line i of ACTUAL matches regex line i.
match_tree() {
    if awk 'NR == FNR { re[FNR] = "^" $0 "$"; n = FNR; next }
            { if (FNR > n || $0 !~ re[FNR]) exit 1; m = FNR }
            END { exit m != n }' "$2" "$3"; then
        pass "$1"
    else
        fail "$1: got"
        sed 's/^/    /' "$3"
    fi
}

guest_tree 0 > "$WORK/tree-0"
match_tree "main thread call tree" "$WORK/expect-main" "$WORK/tree-0"
workers=$(awk '$3 == "func_entry" && $1 != 0 { print $1 }' "$WORK/dump" |
          sort -u)
check_eq "worker streams" 2 "$(echo $workers | wc -w)"
for v in $workers; do
    guest_tree "$v" > "$WORK/tree-$v"
    match_tree "vCPU $v call tree" "$WORK/expect-worker" "$WORK/tree-$v"
done

# main returned normally; what stayed open (libc's start code, exit) is
# closed at exit with kind 3, down to depth 1.
check_eq "last record of the main stream" "func_exit depth 1 kind 3" \
    "$(awk '$1 == 0 && $3 ~ /^func_/ { l = $3 " " $8 " " $9 " " $10 " " $11 }
            END { print l }' "$WORK/dump")"

# image_map: the program's own file, and a range holding its entry point,
# which is also the first block executed (a static program).
real=$(readlink -f "$GUEST")
entry=$(readelf -hW "$GUEST" | awk '/Entry point address/ { print $NF }')
entry=$((entry & ~thumb_bit))
awk '$3 == "image_map" { print $5, $7, $11 }' "$WORK/dump" > "$WORK/maps"
found=""
while read -r s e p; do
    if [ "$((entry))" -ge "$((s))" ] && [ "$((entry))" -lt "$((e))" ]; then
        found=$p
        break
    fi
done < "$WORK/maps"
check_eq "image_map holding the entry point" "$real" "$found"
check_eq "first block executed" "$(printf '0x%x' "$((entry))")" \
    "$(awk '$1 == 0 && $3 == "exec_tb" { print $5; exit }' "$WORK/dump")"

# "calls-ARCH deep": deep(5), then deep(1500) from main, deeper than the
# 1024 frames of the shadow stack. Frames past 1024 are counted in the END
# chunk (its key=value text ends the file), not recorded; the rest still
# nests and closes. deep's innermost frame jumps to its caller's return
# site: that is no return, and no deep frame may be unwound.
"$QTRACE" record -e 'func_*' -o "$WORK/deep.qtr" -- "$GUEST" deep \
    > "$WORK/out" 2>&1
check_eq "deep guest exit status" 0 "$?"
"$QTRACE" dump "$WORK/deep.qtr" > "$WORK/deep"
check_eq "deep: records nest" "vcpu 0: ok" "$(nesting "$WORK/deep")"
check_eq "deep: deepest frame recorded" 1024 \
    "$(awk '$3 == "func_entry" && $9 > m { m = $9 } END { print m }' \
           "$WORK/deep")"
deep_pc=$(awk '$2 == "deep" { print $1 }' "$WORK/syms")
recorded=$(awk -v pc="$deep_pc" '$3 == "func_entry" && $5 == pc { n++ }
                                 END { print n + 0 }' "$WORK/deep")
overflow=$(tail -c 1024 "$WORK/deep.qtr" | tr -c '[:print:]' '\n' |
           sed -n 's/^calls_overflow=//p')
check_eq "deep: frames recorded plus frames counted" 1505 \
    "$((recorded + ${overflow:-0}))"
check_eq "deep: frames that did not return" 0 \
    "$(awk -v pc="$deep_pc" '$3 == "func_exit" && $5 == pc && $11 != 0' \
           "$WORK/deep" | wc -l)"

# "calls-ARCH hop": the longjmp again, with the guest's own setjmp and
# longjmp (calls.c). hop_longjmp's register jump is in a block entered by
# a branch, not by the call: only that block's own mark tells the tracker
# that the next block, at hop_outer's return site, is a landing. There
# hop_longjmp, hop_inner and hop_middle end unwound (kind 1), and
# after_hop is one below hop_outer.
"$QTRACE" record -e 'func_*' -o "$WORK/hop.qtr" -- "$GUEST" hop \
    > "$WORK/out" 2>&1
check_eq "hop guest exit status" 0 "$?"
if grep -q '^calls: hop unsupported$' "$WORK/out"; then
    echo "SKIP hop: calls.c has no assembly setjmp/longjmp for $ARCH"
else
    check_grep "hop guest output" '^calls: hop ok$' "$WORK/out"
    guest_syms 'main|hop_outer|hop_setjmp|hop_middle|hop_inner|hop_longjmp|after_hop' \
        > "$WORK/syms-hop"
    "$QTRACE" dump "$WORK/hop.qtr" > "$WORK/hop"
    check_eq "hop: records nest" "vcpu 0: ok" "$(nesting "$WORK/hop")"
    guest_tree 0 "$WORK/syms-hop" "$WORK/hop" > "$WORK/tree-hop"
    printf '%s\n' '0 main 0 0' '1 hop_outer 1 0' '2 hop_setjmp 1 0' \
        '2 hop_middle 1 1' '3 hop_inner 1 1' '4 hop_longjmp 1 1' \
        '2 after_hop 1 0' > "$WORK/expect-hop"
    match_tree "hop: call tree" "$WORK/expect-hop" "$WORK/tree-hop"
fi

# "calls-ARCH tail": tail_jump is one plain jump (jmp, b, j, b.w) to
# tail_callee's entry, tail_jump_reg a jump to it through a register
# (calls.c): both are tail calls. Their frames end replaced (kind 2) and
# tail_callee's begins at the same depth (kind 1), from the plain jump
# (from the register jump, which no callback notes, "from 0"), with
# tail_leaf below it. Before jumps to function entries were known as
# tail calls, tail_leaf sat under tail_jump and tail_callee was missing.
"$QTRACE" record -e 'func_*' -o "$WORK/tail.qtr" -- "$GUEST" tail \
    > "$WORK/out" 2>&1
check_eq "tail guest exit status" 0 "$?"
check_grep "tail guest output" '^calls: tail ok$' "$WORK/out"
guest_syms 'main|tail_jump|tail_jump_reg|tail_callee|tail_leaf' \
    > "$WORK/syms-tail"
"$QTRACE" dump "$WORK/tail.qtr" > "$WORK/tail"
check_eq "tail: records nest" "vcpu 0: ok" "$(nesting "$WORK/tail")"
guest_tree 0 "$WORK/syms-tail" "$WORK/tail" > "$WORK/tree-tail"
printf '%s\n' '0 main 0 0' '1 tail_jump 1 2' '1 tail_callee 1 0' \
    '2 tail_leaf 1 0' '1 tail_jump_reg 1 2' '1 tail_callee 1 0' \
    '2 tail_leaf 1 0' > "$WORK/expect-tail"
match_tree "tail: call tree" "$WORK/expect-tail" "$WORK/tree-tail"
jump_pc=$(awk '$2 == "tail_jump" { print $1 }' "$WORK/syms-tail")
callee_pc=$(awk '$2 == "tail_callee" { print $1 }' "$WORK/syms-tail")
check_eq "tail: tail_callee entered by the jumps, kind 1" \
    "from $jump_pc kind 1,from 0x0 kind 1" \
    "$(awk -v pc="$callee_pc" '$3 == "func_entry" && $5 == pc {
           print $6, $7, $10, $11 }' "$WORK/tail" | paste -sd,)"

# Following calls changes nothing else: the single-threaded demo guest
# gives the same exec_tb records (pc and time) with and without func_*.
demo="$GUESTS/demo-$ARCH"
"$QTRACE" record -e 'exec_tb' -o "$WORK/plain.qtr" -- "$demo" > /dev/null
"$QTRACE" record -e 'exec_tb,func_*' -o "$WORK/calls.qtr" -- "$demo" \
    > /dev/null
"$QTRACE" dump -e exec_tb "$WORK/plain.qtr" > "$WORK/plain"
"$QTRACE" dump -e exec_tb "$WORK/calls.qtr" > "$WORK/calls"
if [ -s "$WORK/plain" ] && cmp -s "$WORK/plain" "$WORK/calls"; then
    pass "exec_tb records unchanged by func_*"
else
    fail "exec_tb records differ with func_*"
fi
check_eq "func records without func_*" 0 \
    "$(info_count "$WORK/plain.qtr" func_entry)"

# The calls found do not depend on how blocks are instrumented: with the
# block trace (the first recording), alone (each block's flags pick its
# callback), and with range= holding main alone (the other blocks are not
# counted, only followed). The guest's call tree is the same each way,
# and on the single-threaded demo guest every func record but its time.
main_pc=$(awk '$2 == "main" { print $1; exit }' "$WORK/syms")
range="range=$main_pc-$(printf '0x%x' $((main_pc + 64)))"
func_records() {
    "$QTRACE" dump -e 'func_*' "$1" | awk '{ $2 = ""; print }'
}
func_records "$WORK/calls.qtr" > "$WORK/f-demo"
for way in alone range; do
    opts="events=func_*"
    [ $way = range ] && opts="$opts,$range"
    "qemu-$ARCH" -plugin "$QTRACE_PLUGIN,$opts,out=$WORK/$way.qtr" \
        "$GUEST" > /dev/null 2>&1
    "$QTRACE" dump -e 'func_*' "$WORK/$way.qtr" > "$WORK/dump"
    guest_tree 0 > "$WORK/tree-$way"
    match_tree "main thread call tree: $way" "$WORK/expect-main" \
        "$WORK/tree-$way"
    "qemu-$ARCH" -plugin "$QTRACE_PLUGIN,$opts,out=$WORK/demo-$way.qtr" \
        "$demo" > /dev/null 2>&1
    func_records "$WORK/demo-$way.qtr" > "$WORK/f-demo-$way"
    if [ -s "$WORK/f-demo" ] && cmp -s "$WORK/f-demo" "$WORK/f-demo-$way"
    then
        pass "demo func records the same: $way"
    else
        fail "demo func records differ: $way"
    fi
done
finish
