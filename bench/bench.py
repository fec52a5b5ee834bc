#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""qtrace benchmarks: plain QEMU against each qtrace mode, same guest, same run.

For every workload and mode the guest runs under qemu-x86_64, alternating
modes inside each round so that machine noise hits all of them alike; the
median of the rounds is compared with the median of plain QEMU. Prints a
table: time ratio to plain QEMU, trace file size, encoded bytes (before
compression) per executed block and per memory access, records per
second, the writer thread's share of the CPU the run took (with one
vCPU, above half means the writer set the pace), peak memory. Then times the reader on the biggest trace.
Usage: bench.py BUILD_DIR [--rounds N] [--quick] [--workload NAME]
[--modes MODE,...] (plain is always run: the ratios are to it).
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# name: (plugin options or None for plain QEMU, what it stands for). The
# modes listed in EXECLOG_ONLY write gigabytes a second: they run on a
# smaller short-block workload only, to compare with execlog's layout.
# The FLOORS run bench/floor.c instead of qtrace, on the first workload
# only: what QEMU itself charges for each way of hooking blocks; those
# the goals of the other workloads are held against (WORKLOAD_FLOORS)
# run on every one of them.
# The BACKENDS (backend=) send every block to the tracing runtime's
# backends as well as to the native file, a system call or more per
# block for some: they run on a workload of their own, 1/200 of the
# short-block work, beside "blocks", the native format alone.
BACKENDS = ("blocks+simple", "blocks+log", "blocks+syslog", "blocks+ftrace",
            "blocks+ust", "blocks+dtrace")
EXECLOG_ONLY = ("insns+mem", "text-log") + BACKENDS
EXECLOG_COMPARE = ("plain", "blocks+mem", "insns+mem", "text-log")
BACKENDS_WORKLOAD = "short-blocks/200"
BACKENDS_COMPARE = ("plain", "blocks") + BACKENDS
FLOORS = ("floor:trans", "floor:inline", "floor:callback", "floor:mem",
          "floor:mem-append8", "floor:append8", "floor:phys")
WORKLOAD_FLOORS = ("floor:callback", "floor:mem", "floor:mem-append8")
EXECLOG_WORKLOAD = "short-blocks/20"
READER_WORKLOAD = "xz -1 (1 MB)"
MODES = [
    ("plain", None, "QEMU without a plugin"),
    ("counts", "events=tb_count;tb_trans",
     "execution count per block (inline counters)"),
    ("counts+instr",
     "events=tb_count;tb_trans,instr={instr}/libqtrace-instr-null.so",
     "counts, and an instrumentation library that reads every translated "
     "block and asks for nothing at execution time"),
    ("counts+instr-blocks",
     "events=tb_count;tb_trans,instr={instr}/libqtrace-instr-counter.so,"
     "instr-arg=out={dir}/counter.txt",
     "counts, and the example library counting blocks (one callback per "
     "executed block)"),
    ("counts+qi-nop",
     "events=tb_count;tb_trans,instr={instr}/libqtrace-qi-nop.so",
     "counts, and a qemu-instr library with every event set to _nop"),
    ("counts+qi-proposal",
     "events=tb_count;tb_trans,instr={instr}/libqtrace-qi-proposal-example.so",
     "counts, and the qemu-instr proposal's example (every translated "
     "access traced, a callback per executed store)"),
    ("counts+instr-funcs-null",
     "events=tb_count;tb_trans,instr={instr}/libqtrace-instr-null.so,"
     "instr-arg=funcs",
     "counts, and a library with empty function entry and exit callbacks "
     "(the call tracker and the host's hand-off)"),
    ("counts+instr-funcs",
     "events=tb_count;tb_trans,instr={instr}/libqtrace-instr-calls.so,"
     "instr-arg=out={dir}/calls.txt",
     "counts, and the example library counting calls per function (the "
     "call tracker, and a callback per function entry and exit)"),
    ("counts+instr-cache",
     "events=tb_count;tb_trans,instr={instr}/libqtrace-instr-cachesim.so,"
     "instr-arg=out={dir}/cache.txt",
     "counts, and the example L1 data cache simulator (a callback per "
     "load and store)"),
    ("counts+instr-cover",
     "events=tb_count;tb_trans,instr={instr}/libqtrace-instr-coverage.so,"
     "instr-arg=out={dir}/cover.txt",
     "counts, and the example coverage collector (a callback per block)"),
    ("blocks", "events=tb_trans;exec_tb", "ordered block trace"),
    ("blocks+timeline", "events=tb_trans;exec_tb,timeline=on",
     "block trace with host clock stamps (a clock record where each "
     "chunk begins and ends and where the vCPU stood still)"),
    ("blocks+ring", "events=tb_trans;exec_tb,ring=4M",
     "block trace as a flight recorder: the last 4M of blocks per vCPU "
     "kept in memory, written at exit"),
    ("blocks+libevents",
     "events=tb_trans;exec_tb;user_event,"
     "instr={instr}/libqtrace-instr-sampler.so,instr-arg=every=10",
     "block trace, and the sampler example writing an event of its own "
     "(sampler:sample, 32 bytes) per 10 executed blocks"),
    ("blocks+mem", "events=tb_trans;exec_tb;mem_access",
     "block trace and every memory access"),
    ("calls", "events=func_*;image_map", "function calls and returns"),
    ("window-late",
     "events=tb_trans;exec_tb;mem_access,start-at=1000000000000000",
     "blocks and accesses from an instruction far beyond the run's end: "
     "what a window costs before it opens (counting)"),
    ("window-done", "events=tb_trans;exec_tb;mem_access,stop-after=10000",
     "blocks and accesses of the first 10000 instructions: what a window "
     "costs once closed (no instrumentation)"),
    ("insns+mem", "events=tb_trans;exec_insn;mem_access",
     "every instruction and access (execlog's information)"),
    ("text-log", "log={dir}/exec.log,events=-tb_trans",
     "execlog-style text log of every instruction"),
    ("blocks+simple",
     "events=tb_trans;exec_tb,backend=simple,backend-file={dir}/trace.st",
     "block trace, also to the simple backend (simpletrace file)"),
    ("blocks+log",
     "events=tb_trans;exec_tb,backend=log,backend-log={dir}/backend.log",
     "block trace, also to the log backend (a file)"),
    ("blocks+syslog", "events=tb_trans;exec_tb,backend=syslog",
     "block trace, also to the syslog backend"),
    ("blocks+ftrace", "events=tb_trans;exec_tb,backend=ftrace",
     "block trace, also to the ftrace backend (needs tracefs)"),
    ("blocks+ust", "events=tb_trans;exec_tb,backend=ust",
     "block trace, also to LTTng-UST (recorded if a session enables "
     "qtrace:*)"),
    ("blocks+dtrace", "events=tb_trans;exec_tb,backend=dtrace",
     "block trace, also to the SDT probes (fired if a tracer is attached)"),
    ("floor:trans", "trans=on",
     "a plugin that sees every translation and instruments nothing"),
    ("floor:inline", "inline=on", "QEMU's inline add per block, no callback"),
    ("floor:callback", "", "an empty callback per block"),
    ("floor:mem", "mem=on",
     "an empty callback per block and per load and store"),
    ("floor:mem-append8", "mem-append=on",
     "a callback per block and per load and store, each appending 8 "
     "bytes to a ring, no I/O (the least a trace that stages every "
     "access can cost)"),
    ("floor:append8", "append=on",
     "a callback appending 8 bytes per block to a ring, no I/O"),
    ("floor:phys", "phys=on",
     "an empty callback per block, and per load and store one that asks "
     "QEMU for the physical address (system mode's floor when asking)"),
]
# A Linux boot in system mode (make kernels): Debian's x86_64 kernel and
# the test initramfs to poweroff on 2 vCPUs under MTTCG, these modes.
BOOT_WORKLOAD = "linux boot (x86_64, 2 vCPUs)"
BOOT_MODES = ("plain", "floor:mem", "floor:phys", "blocks", "blocks+mem")


def workloads(build, work):
    """(name, argv) of each workload; argv[0] is run under qemu-x86_64."""
    bench = os.path.join(build, "bench")
    xz_input = os.path.join(work, "xz-input")
    with open(xz_input, "w") as f:
        for i in range(1, 150001):
            f.write(f"{i}\n")
    # A quarter of it for -6: its memory trace is four times -1's per
    # byte (over 3 GB for the whole file).
    xz_small = os.path.join(work, "xz-input-256k")
    with open(xz_input, "rb") as src, open(xz_small, "wb") as dst:
        dst.write(src.read(256 * 1024))
    blocks = os.path.join(bench, "work-blocks")
    items = [
        ("short-blocks", [blocks, "100000000"]),
        ("memory", [os.path.join(bench, "work-mem"), "40"]),
        ("calls", [os.path.join(bench, "work-calls"), "33"]),
        # Where memory tracing is hard: qsort with its comparison
        # callback and a hash table (real programs' accesses), and a
        # pointer chase no stride predicts.
        ("sort-and-hash", [os.path.join(bench, "work-sort"), "4"]),
        ("pointer-chase", [os.path.join(bench, "work-chase"), "24"]),
    ]
    xz = shutil.which("xz")
    if xz:
        items.append(("xz -1 (1 MB)", [xz, "-T1", "-1", "-c", xz_input]))
        items.append(("xz -6 (256 KB)", [xz, "-T1", "-6", "-c", xz_small]))
    # Last: the execlog comparison, on 1/20 of the short-block work, and
    # the backends on 1/200; then the boot, if there is a kernel.
    items.append((EXECLOG_WORKLOAD, [blocks, "5000000"]))
    items.append((BACKENDS_WORKLOAD, [blocks, "500000"]))
    kdir = os.path.join(build, "kernels", "x86_64")
    qsys = shutil.which("qemu-system-x86_64")
    if qsys and os.path.exists(os.path.join(kdir, "kernel")):
        items.append((BOOT_WORKLOAD, [
            qsys, "-machine", "pc", "-display", "none", "-nodefaults",
            "-accel", "tcg,thread=multi", "-smp", "2", "-m", "256",
            "-no-reboot", "-serial", "file:" + os.path.join(work, "console"),
            "-kernel", os.path.join(kdir, "kernel"),
            "-initrd", os.path.join(kdir, "initramfs.gz"),
            "-append", "console=ttyS0 quiet panic=-1"]))
    else:
        print(f"bench: no {BOOT_WORKLOAD} (make kernels, Debian package "
              "qemu-system-x86)")
    return items


def thread_cpu(pid, seen):
    """Note in seen each thread of pid: name -> CPU seconds so far (the
    plugin names its writer thread qtrace-writer)."""
    tick = os.sysconf("SC_CLK_TCK")
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        cpu = (int(fields[11]) + int(fields[12])) / tick
        key = "writer" if name == "qtrace-writer" else tid
        seen[key] = max(seen.get(key, 0), cpu)


def run_once(args, argv, mode, opts, trace):
    """Run argv under qemu-x86_64; returns (seconds, peak RSS in KiB,
    CPU seconds of the plugin's writer thread, CPU seconds in all)."""
    # A system-mode workload names its QEMU; the rest run in user mode.
    system = os.path.basename(argv[0]).startswith("qemu-system-")
    cmd = [argv[0]] if system else ["qemu-x86_64"]
    plugin = args.plugin
    if mode in FLOORS:
        cmd += ["-plugin", ",".join(filter(None, [args.floor, opts]))]
    elif opts is not None and opts.startswith("log="):
        cmd += ["-plugin", f"{plugin},{opts}"]      # the text log alone
    elif opts is not None:
        cmd += ["-plugin", f"{plugin},out={trace},{opts}"]
    cmd += argv[1:] if system else argv
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    seen = {}
    while True:
        # Sampled every 10 ms: the writer's share, for the blocks+mem rows.
        thread_cpu(proc.pid, seen)
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        time.sleep(0.01)
    elapsed = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(cmd)}: status "
                           f"{os.waitstatus_to_exitcode(status)}: {err}")
    return (elapsed, usage.ru_maxrss, seen.get("writer", 0.0),
            usage.ru_utime + usage.ru_stime)


def info_counts(qtrace, trace):
    """Event counts and totals from `qtrace info`."""
    out = subprocess.run([qtrace, "info", trace], capture_output=True,
                         text=True, check=True).stdout
    counts = {}
    in_events = False
    for line in out.splitlines():
        if line == "events:":
            in_events = True
        elif not line.startswith("  "):
            in_events = False
        if in_events and line.startswith("  "):
            name, value = line.split()
            counts[name] = int(value)
        if line.startswith("total:"):
            counts["total"] = int(line.split()[1])
        elif line.startswith("data_bytes:"):
            counts["data_bytes"] = int(line.split()[1])
    return counts


def mode_supported(plugin, opts, work):
    """False when the plugin refuses the options (an event it lacks)."""
    trace = os.path.join(work, "probe.qtr")
    proc = subprocess.run(["qemu-x86_64", "-plugin",
                           f"{plugin},out={trace},{opts}", "/bin/true"],
                          capture_output=True)
    return proc.returncode == 0


def trace_stats(args, mode, trace, log):
    """Size and counts of the output a mode left; then delete it."""
    stats = {}
    if os.path.exists(trace):
        stats["bytes"] = os.path.getsize(trace)
        counts = info_counts(args.qtrace, trace)
        stats["encoded"] = counts.get("data_bytes", stats["bytes"])
        stats["records"] = counts.get("total", 0)
        stats["blocks"] = counts.get("exec_tb", 0)
        stats["mems"] = counts.get("mem_access", 0)
    if mode == "text-log" and os.path.exists(log):
        stats["bytes"] = os.path.getsize(log)
        os.unlink(log)
    return stats


def bench_workload(args, name, argv, modes, work, keep):
    """Rows of the table for one workload; keeps its blocks+mem trace
    at the path keep (for the reader benchmark)."""
    times = {m[0]: [] for m in modes}
    writer = {m[0]: [] for m in modes}
    rss = {m[0]: 0 for m in modes}
    stats = {}
    log = os.path.join(work, "exec.log")
    for rnd in range(args.rounds):
        for mode, opts, _ in modes:
            trace = os.path.join(work, f"{mode}.qtr")
            if opts is not None:
                opts = opts.format(dir=work, instr=args.instr_dir)
            sec, peak, wcpu, cpu = run_once(args, argv, mode, opts, trace)
            times[mode].append(sec)
            writer[mode].append(wcpu / cpu if cpu else 0.0)
            rss[mode] = max(rss[mode], peak)
            if rnd == args.rounds - 1:
                stats[mode] = trace_stats(args, mode, trace, log)
                if mode == "blocks+mem" and os.path.exists(trace):
                    os.replace(trace, keep)
            for leftover in (trace, log, os.path.join(work, "trace.st"),
                             os.path.join(work, "counter.txt"),
                             os.path.join(work, "backend.log")):
                if os.path.exists(leftover):
                    os.unlink(leftover)
    rows = []
    plain = statistics.median(times["plain"])
    for mode, opts, _ in modes:
        t = statistics.median(times[mode])
        st = stats.get(mode, {})
        row = {"workload": name, "mode": mode, "seconds": t,
               "ratio": t / plain, "rss": rss[mode],
               "bytes": st.get("bytes"),
               "writer": statistics.median(writer[mode]) or None}
        if st.get("records"):
            row["rec_per_s"] = st["records"] / t
        if st.get("blocks") and mode != "text-log":
            row["b_per_block"] = st["encoded"] / st["blocks"]
        rows.append(row)
    # Bytes per access: what adding mem_access costs over blocks alone,
    # encoded, before compression (which varies with the writer's load).
    tb, tbm = stats.get("blocks"), stats.get("blocks+mem")
    if tb and tbm and tbm.get("mems"):
        for row in rows:
            if row["mode"] == "blocks+mem":
                row["b_per_mem"] = ((tbm["encoded"] - tb["encoded"])
                                    / tbm["mems"])
                # And on disk, after the writer's compression.
                row["zb_per_mem"] = ((tbm["bytes"] - tb["bytes"])
                                     / tbm["mems"])
    return rows


def fmt(value, spec):
    return "" if value is None else format(value, spec)


def print_table(rows):
    print("| workload | mode | time (s) | x plain | trace MB | B/block "
          "| B/access | B/access on disk | Mrec/s | writer % | peak MB |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        mb = r.get("bytes")
        print(f"| {r['workload']} | {r['mode']} | {r['seconds']:.2f} "
              f"| {r['ratio']:.2f} | {fmt(mb and mb / 1e6, '.1f')} "
              f"| {fmt(r.get('b_per_block'), '.1f')} "
              f"| {fmt(r.get('b_per_mem'), '.1f')} "
              f"| {fmt(r.get('zb_per_mem'), '.2f')} "
              f"| {fmt(r.get('rec_per_s') and r['rec_per_s'] / 1e6, '.1f')} "
              f"| {fmt(r.get('writer') and 100 * r['writer'], '.0f')} "
              f"| {r['rss'] / 1024:.0f} |")


def bench_reader(args, trace):
    """Time the reader commands on one trace: records per second."""
    records = info_counts(args.qtrace, trace).get("total", 0)
    print()
    print(f"Reader on {os.path.getsize(trace) / 1e6:.0f} MB, "
          f"{records / 1e6:.1f} M records (median of {args.rounds}):")
    print()
    print("| command | time (s) | M records/s |")
    print("|---|---:|---:|")
    commands = [
        ("qtrace info", [args.qtrace, "info", trace]),
        ("qtrace dump -j 1 > /dev/null", [args.qtrace, "dump", "-j", "1",
                                          trace]),
        ("qtrace dump > /dev/null", [args.qtrace, "dump", trace]),
        ("qtrace report --vcpus -j 1", [args.qtrace, "report", "--vcpus",
                                        "-j", "1", trace]),
        ("qtrace report --vcpus", [args.qtrace, "report", "--vcpus",
                                   trace]),
        ("qtrace report --memory", [args.qtrace, "report", "--memory",
                                    trace]),
        ("qtrace convert --to etrace", [args.qtrace, "convert", "--to",
                                        "etrace", trace, os.devnull]),
    ]
    for label, cmd in commands:
        secs = []
        for _ in range(args.rounds):
            start = time.perf_counter()
            subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
            secs.append(time.perf_counter() - start)
        t = statistics.median(secs)
        print(f"| {label} | {t:.2f} | {records / t / 1e6:.1f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build", help="meson build directory")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--quick", action="store_true",
                    help="first workload only")
    ap.add_argument("--workload", help="only the workload of this name")
    ap.add_argument("--modes", help="only these modes (comma separated), "
                    "floors included on any workload")
    args = ap.parse_args()
    wanted = None
    if args.modes:
        wanted = set(args.modes.split(",")) | {"plain"}
        unknown = wanted - {m[0] for m in MODES}
        if unknown:
            sys.exit("bench: unknown mode " + ", ".join(sorted(unknown)))
    args.plugin = os.path.abspath(
        os.path.join(args.build, "src/plugin/libqtrace.so"))
    args.qtrace = os.path.abspath(os.path.join(args.build, "src/cli/qtrace"))
    args.instr_dir = os.path.abspath(os.path.join(args.build,
                                                  "examples/instrument"))
    args.floor = os.path.abspath(os.path.join(args.build,
                                              "bench/libfloor.so"))
    if shutil.which("qemu-x86_64") is None:
        sys.exit("bench: qemu-x86_64 not found (Debian package qemu-user)")

    with tempfile.TemporaryDirectory(prefix="qtrace-bench.") as work:
        chosen = [m for m in MODES if wanted is None or m[0] in wanted]
        modes = [m for m in chosen
                 if m[1] is None or m[0] in FLOORS
                 or mode_supported(args.plugin,
                                    m[1].format(dir=work,
                                                instr=args.instr_dir),
                                    work)]
        skipped = [m[0] for m in chosen if m not in modes]
        print(f"qtrace bench: {args.rounds} rounds, median; modes: "
              + ", ".join(f"{m[0]} ({m[2]})" for m in modes))
        if skipped:
            print("not supported by this plugin: " + ", ".join(skipped))
        print()
        rows = []
        biggest = None
        reader_fixed = False
        items = workloads(args.build, work)
        if args.quick:
            items = items[:1]
        if args.workload:
            items = [w for w in items if w[0] == args.workload]
            if not items:
                sys.exit(f"bench: no workload named {args.workload}")
        for i, (name, argv) in enumerate(items):
            keep = os.path.join(work, "kept.qtr")
            if name == BOOT_WORKLOAD:
                # Not the reader's trace (billions of records): deleted.
                keep = os.path.join(work, "boot-kept.qtr")
            if name == EXECLOG_WORKLOAD:
                these = [m for m in modes if m[0] in EXECLOG_COMPARE]
            elif name == BACKENDS_WORKLOAD:
                these = [m for m in modes if m[0] in BACKENDS_COMPARE]
            elif name == BOOT_WORKLOAD:
                these = [m for m in modes if m[0] in BOOT_MODES]
            else:
                these = [m for m in modes if m[0] not in EXECLOG_ONLY
                         and (i == 0 or wanted or m[0] not in FLOORS
                              or m[0] in WORKLOAD_FLOORS)]
            rows += bench_workload(args, name, argv, these, work, keep)
            # The reader's figures stay on the xz trace when there is one
            # (docs/performance.md compares them across versions).
            if name == BOOT_WORKLOAD:
                pass
            elif os.path.exists(keep) and (
                    biggest is None or name == READER_WORKLOAD
                    or (not reader_fixed and
                        os.path.getsize(keep) > os.path.getsize(biggest))):
                reader_fixed = reader_fixed or name == READER_WORKLOAD
                biggest = os.path.join(work, "reader.qtr")
                os.replace(keep, biggest)
            elif os.path.exists(keep):
                os.unlink(keep)
            if os.path.exists(os.path.join(work, "boot-kept.qtr")):
                os.unlink(os.path.join(work, "boot-kept.qtr"))
            sys.stdout.flush()
        print_table(rows)
        if biggest:
            bench_reader(args, biggest)


if __name__ == "__main__":
    main()
