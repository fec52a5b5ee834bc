#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# qtrace replay, report --functions and the names in qtrace dump, on the
# calls guest of ARCH: the call tree and call counts its source gives,
# the -F, -N and -D filters, and times that add up (fact calls nothing
# but fact, so its self time is its total time).
ARCH=$1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/calls.sh"
use_guest calls "$ARCH"
MAIN=$(calls_main "$ARCH")

T="$WORK/t.qtr"
"$QTRACE" record -e 'func_*,image_map,vcpu_*' -o "$T" -- "$GUEST" \
    > "$WORK/guest.out" 2> "$WORK/guest.err"
check_eq "guest exit status" 0 "$?"

"$QTRACE" replay "$T" > "$WORK/replay" 2> "$WORK/replay.err"
check_eq "replay status" 0 "$?"
check_eq "replay messages" "" "$(cat "$WORK/replay.err")"
check_tree "qtrace replay" "$WORK/replay"
check_eq "replay: closing and leaf lines without a duration" 0 \
    "$(awk -F' [[]' 'NR > 1 && ($0 ~ /\(\);$/ || $0 ~ /\| *} \/\*/) &&
                     $1 !~ /^ *[1-9][0-9]*$/' "$WORK/replay" | wc -l)"

# The text of a filtered replay, without durations and thread ids.
replay_text() {
    "$QTRACE" replay "$@" "$T" | sed -n 's/^[^|]*| //p'
}
check_eq "replay -F apply" \
    "apply() {|  add_one();|} /* apply */|apply() {|  twice();|} /* apply */" \
    "$(replay_text -F apply | tr '\n' '|' | sed 's/|$//')"
check_eq "replay -F fact -D 2" "fact() {|  fact();|} /* fact */" \
    "$(replay_text -F fact -D 2 | tr '\n' '|' | sed 's/|$//')"
check_eq "replay -F jump_outer -D 1" "jump_outer();" \
    "$(replay_text --filter=jump_outer --depth=1)"
replay_text -N raise_signal -N 'run_*' > "$WORK/notrace"
check_eq "replay -N: raise_signal, run_threads and callees hidden" 0 \
    "$(grep -c -E \
       '(raise_signal|on_signal|in_handler|run_threads|pthread_create)\(' \
       "$WORK/notrace")"
check_eq "replay -N: the workers stay (other streams)" 2 \
    "$(grep -c '^ *worker() {' "$WORK/notrace")"
check_eq "replay -N: fact stays" 5 "$(grep -c '^ *fact()' "$WORK/notrace")"

"$QTRACE" report --functions "$T" > "$WORK/report" 2> "$WORK/report.err"
check_eq "report --functions status" 0 "$?"
check_eq "report --functions calls" "$CALLS_COUNTS" \
    "$(calls_counts "$WORK/report")"
check_eq "report: functions whose self time exceeds their total" 0 \
    "$(awk '$1 ~ /^[0-9]+$/ && $2 > $1' "$WORK/report" | wc -l)"
fact_total=$(awk '$NF == "fact" { print $1 }' "$WORK/report")
fact_self=$(awk '$NF == "fact" { print $2 }' "$WORK/report")
check_eq "report: fact's self time is its total" "$fact_total" "$fact_self"
# Total counts the outermost fact: its duration in the replay.
outer=$("$QTRACE" replay -F fact -D 1 "$T" | awk '/fact\(\);$/ { print $1 }')
check_eq "report: fact's total is the outermost call's duration" \
    "$outer" "$fact_total"
check_eq "report: first line is the heaviest" \
    "$(awk '$1 ~ /^[0-9]+$/ { print $1 }' "$WORK/report" |
       sort -rn | head -1)" \
    "$(awk '$1 ~ /^[0-9]+$/ { print $1; exit }' "$WORK/report")"

"$QTRACE" dump -e 'func_*' "$T" > "$WORK/dump"
check_eq "dump: func_entry lines naming fact" 5 \
    "$(grep -c 'func_entry .* | fact$' "$WORK/dump")"
check_eq "dump: func_exit lines naming fact" 5 \
    "$(grep -c 'func_exit .* | fact$' "$WORK/dump")"
check_eq "dump: func_entry lines naming $MAIN" 1 \
    "$(grep -c "func_entry .* | $MAIN\$" "$WORK/dump")"
finish
