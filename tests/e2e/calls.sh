# SPDX-License-Identifier: GPL-2.0-or-later
# What the tests of the calls guest (tests/guests/calls.c) share, sourced
# after lib.sh: the guest's own functions, the call tree and the call
# counts its header comment gives, and the reduction of a replay-style
# tree (uftrace's or qtrace's) to those functions (calltree.awk).

CALLS_FUNCS="main fact add_one twice apply jump_inner jump_middle after_jump"
CALLS_FUNCS="$CALLS_FUNCS jump_outer in_handler on_signal raise_signal"
CALLS_FUNCS="$CALLS_FUNCS work_item worker run_threads"
E2E_DIR=$(dirname "$0")

# The main thread's tree, then each worker's: "DEPTH:NAME" per call,
# DEPTH counting only the guest's own functions (calls.c's comment).
CALLS_TREE_MAIN="0:main,1:fact,2:fact,3:fact,4:fact,5:fact"
CALLS_TREE_MAIN="$CALLS_TREE_MAIN,1:apply,2:add_one,1:apply,2:twice"
CALLS_TREE_MAIN="$CALLS_TREE_MAIN,1:jump_outer,2:jump_middle,3:jump_inner"
CALLS_TREE_MAIN="$CALLS_TREE_MAIN,2:after_jump,1:raise_signal,2:on_signal"
CALLS_TREE_MAIN="$CALLS_TREE_MAIN,3:in_handler,1:run_threads"
CALLS_TREE_WORKER="0:worker,1:work_item"

# Calls per function, sorted by name.
CALLS_COUNTS="add_one=1 after_jump=1 apply=2 fact=5 in_handler=1"
CALLS_COUNTS="$CALLS_COUNTS jump_inner=1 jump_middle=1 jump_outer=1 main=1"
CALLS_COUNTS="$CALLS_COUNTS on_signal=1 raise_signal=1 run_threads=1 twice=1"
CALLS_COUNTS="$CALLS_COUNTS work_item=2 worker=2"

# calls_main ARCH: the name main's frame has. glibc's static aarch64
# start code calls __wrap_main, which enters main by a direct branch
# (b main): a tail call to a function's entry, so main has a frame of its
# own there too.
calls_main() {
    echo main
}

# calls_tree FILE: the tree of a replay-style listing, one line per
# thread, sorted (thread ids and their order differ between runs).
calls_tree() {
    awk -v names="$CALLS_FUNCS" -f "$E2E_DIR/calltree.awk" "$1" |
        awk '{ s[$1] = s[$1] (s[$1] == "" ? "" : ",") $2 ":" $3 }
             END { for (t in s) print s[t] }' | LC_ALL=C sort
}

calls_expected_tree() {
    printf '%s\n' "$CALLS_TREE_MAIN" "$CALLS_TREE_WORKER" \
        "$CALLS_TREE_WORKER" | LC_ALL=C sort
}

# check_tree WHAT FILE: FILE's reduced tree is the guest's.
check_tree() {
    calls_tree "$2" > "$2.tree"
    calls_expected_tree > "$2.expect"
    if cmp -s "$2.tree" "$2.expect"; then
        pass "$1: call tree of the guest's functions"
    else
        fail "$1: call tree differs (expected, then got):"
        sed 's/^/    /' "$2.expect" "$2.tree"
    fi
}

# calls_counts FILE: "name=calls" of the guest's functions from a table
# whose last two columns are CALLS and FUNCTION (uftrace report, qtrace
# report --functions), sorted by name.
calls_counts() {
    awk -v names="$CALLS_FUNCS" '
        BEGIN {
            n = split(names, l, " ")
            for (i = 1; i <= n; i++) g[l[i]] = 1
        }
        ($NF in g) && $(NF - 1) ~ /^[0-9]+$/ {
            print $NF "=" $(NF - 1)
        }' "$1" | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//'
}
