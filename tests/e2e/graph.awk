# SPDX-License-Identifier: GPL-2.0-or-later
# The chosen functions of a `uftrace graph` listing, in order, as
# "CALLS NAME" joined by commas. Usage: awk -v names="f g" -f graph.awk
BEGIN {
    n = split(names, list, " ")
    for (i = 1; i <= n; i++) {
        chosen[list[i]] = 1
    }
}
($NF in chosen) && $(NF - 1) ~ /\([0-9]+\)$/ {
    calls = $(NF - 1)
    sub(/.*\(/, "", calls)
    sub(/\)/, "", calls)
    printf "%s%s %s", sep, calls, $NF
    sep = ","
}
END {
    print ""
}
