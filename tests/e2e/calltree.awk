# SPDX-License-Identifier: GPL-2.0-or-later
# Reduce a call tree printed like `uftrace replay` (by uftrace or by
# `qtrace replay`) to the calls of chosen functions: one line per call,
# "TID DEPTH NAME", where DEPTH counts only the chosen functions around
# it. Nesting comes from the indentation, so a tree whose closing lines
# are missing (uftrace after a longjmp) reduces the same way.
# Usage: awk -v names="main fact ..." -f calltree.awk REPLAY-OUTPUT
BEGIN {
    n = split(names, list, " ")
    for (i = 1; i <= n; i++) {
        chosen[list[i]] = 1
    }
}
/^#/ { next }
{
    bar = index($0, "] | ")
    open_at = index($0, "[")
    if (bar == 0 || open_at == 0 || open_at > bar) {
        next
    }
    tid = substr($0, open_at + 1, bar - open_at - 1)
    gsub(/ /, "", tid)
    rest = substr($0, bar + 4)
    match(rest, /^ */)
    indent = RLENGTH / 2
    text = substr(rest, RLENGTH + 1)
    if (text ~ /^}/ || text ~ /^\/\*/) {
        next
    }
    name = text
    sub(/\(.*/, "", name)
    # Close the frames this line is not inside of.
    while (top[tid] > 0 && ind[tid, top[tid]] >= indent) {
        top[tid]--
    }
    depth = 0
    for (i = 1; i <= top[tid]; i++) {
        depth += is_chosen[tid, i]
    }
    if (name in chosen) {
        print tid, depth, name
    }
    if (text ~ /\{$/) {
        top[tid]++
        ind[tid, top[tid]] = indent
        is_chosen[tid, top[tid]] = (name in chosen) ? 1 : 0
    }
}
