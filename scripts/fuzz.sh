#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Run the libFuzzer targets of a -Dfuzz=true build (see `make fuzz`), one
# after the other, each for FUZZ_SECONDS (default 300), each on its corpus
# BUILD/corpus/<target> (kept between runs, started from the committed
# seeds and regress files), under nice. Inputs that crash, leak, hang or
# run out of memory land in BUILD/findings/<target>/. Prints one line per
# target: seconds run, inputs executed, coverage (edges), findings; exits
# 1 when any target found something new.
# Usage: fuzz.sh BUILD_DIR [TARGET...]   (default: every target)
set -u

BUILD=${1:?usage: fuzz.sh BUILD_DIR [TARGET...]}
shift
SRC=$(cd "$(dirname "$0")/.." && pwd)
FUZZ=$SRC/tests/fuzz
SECONDS_EACH=${FUZZ_SECONDS:-300}
ALL="trace trace-nocrc cli cli-nocrc etrace catalog kv options elf"
TARGETS=${*:-$ALL}

# The seeds a target starts from: the targets that read traces share
# those of fuzz-trace.
seeds_of() {
    case $1 in
    trace-nocrc|cli|cli-nocrc) echo trace ;;
    *) echo "$1" ;;
    esac
}

# libFuzzer options per target: a dictionary where tokens help, and an
# input size that fits what the parser reads.
options_of() {
    case $1 in
    trace|trace-nocrc) echo "-dict=$FUZZ/trace.dict -max_len=65536" ;;
    # The commands' one-line diagnostics would bury libFuzzer's output.
    cli|cli-nocrc)
        echo "-dict=$FUZZ/trace.dict -max_len=65536 -close_fd_mask=2" ;;
    etrace) echo "-dict=$FUZZ/etrace.dict -max_len=32768" ;;
    catalog) echo "-dict=$FUZZ/catalog.dict -max_len=8192" ;;
    options) echo "-dict=$FUZZ/options.dict -max_len=1024" ;;
    elf) echo "-max_len=65536" ;;
    *) echo "-max_len=4096" ;;
    esac
}

findings_in() {
    find "$1" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' \
        -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l
}

# Temporary files of the targets (their input files) stay in the build.
export TMPDIR="$BUILD/fuzz-tmp"
mkdir -p "$TMPDIR" "$BUILD/fuzz-logs"
status=0
printf '%-12s %8s %12s %8s %9s\n' target seconds execs cov findings
for t in $TARGETS; do
    exe=$BUILD/tests/fuzz/fuzz-$t
    corpus=$BUILD/corpus/$t
    found=$BUILD/findings/$t
    log=$BUILD/fuzz-logs/$t.log
    if [ ! -x "$exe" ]; then
        echo "fuzz: $exe: not built (configure with -Dfuzz=true)" >&2
        status=1
        continue
    fi
    mkdir -p "$corpus" "$found"
    for d in "$FUZZ/seeds/$(seeds_of "$t")" "$FUZZ/regress/$t"; do
        [ -d "$d" ] && cp -n "$d"/* "$corpus"/ 2>/dev/null
    done
    before=$(findings_in "$found")
    start=$(date +%s)
    # Fork mode goes on after a crash, so one run reports every finding
    # of its time; a job is one process at a time (-fork=1).
    # shellcheck disable=SC2046
    ASAN_OPTIONS=detect_leaks=1 \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    nice -n 10 "$exe" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 \
        -ignore_ooms=1 -timeout=10 -rss_limit_mb=2048 \
        -max_total_time="$SECONDS_EACH" -artifact_prefix="$found/" \
        $(options_of "$t") "$corpus" > "$log" 2>&1
    took=$(( $(date +%s) - start ))
    # A job that crashed left its input directory behind; live ones
    # rewrite their input file all the time.
    find "$TMPDIR" -mindepth 2 -maxdepth 2 -path '*/qtrace-fuzz-*/input' \
        -mmin +10 | while read -r input; do
        rm -rf "${input%/input}"
    done
    # "#EXECS: cov: N ft: ..." is fork mode's progress line.
    last=$(grep -E '^#[0-9]+: cov: ' "$log" | tail -1)
    execs=$(echo "$last" | sed -n 's/^#\([0-9]*\):.*/\1/p')
    cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    new=$(( $(findings_in "$found") - before ))
    printf '%-12s %8s %12s %8s %9s\n' "$t" "$took" "${execs:-?}" \
        "${cov:-?}" "$new"
    if [ "$new" -gt 0 ]; then
        status=1
        with_findings="${with_findings:-} $t"
    fi
done
if [ -n "${with_findings:-}" ]; then
    echo "fuzz: findings in $BUILD/findings/, logs in $BUILD/fuzz-logs/:" >&2
    # shellcheck disable=SC2086
    "$(dirname "$0")/fuzz-triage.sh" "$BUILD" $with_findings >&2
fi
exit $status
