#!/usr/bin/env python3
"""Fulcrum benchmark runner and report (called by `make bench`).

Boots the kernel under QEMU with deterministic instruction counting
(`-icount shift=0,sleep=off`, single-threaded TCG) and parses lines

    BENCH <name> <unit> <n> <v1> ... <vn>
    BENCH-STAT <name> <key> <value>   (optional: a field of <name>'s
                                       result beyond min/median/max)
    BENCH-DONE <count>

into build/bench/results.json and a readable report (results.txt, also
printed) that puts Fulcrum's numbers next to the paper's tables from
tools/bench_meta.json. Each result has a "kind" (tools/bench_kinds.py);
a timed one, measured in time under multi-threaded TCG, is one boot's
figure and says so ("note": "single boot, not decided"): make
bench-timed decides it. A timed row whose figure is a ratio of two
results gets a result of its own once both are in results.json. With --repeat 2 it boots twice and checks that
every sample is identical across boots. --from-log parses saved logs
instead of booting (repeat it to check determinism between logs).
With --median-of-boots the boots (or logs) are not compared: each
result's samples become the boots' medians, one per boot, so its median
is the median of the boots (a figure that follows the disk's timing).
With --wake-path-plugin it loads the wake_path TCG plugin
(tools/plugin/) and adds its figures, wake_path_<policy>, to the
results, as if the guest had printed them (tools/plugin/wake_path.py).
"""

import argparse
import fnmatch
import json
import os
import re
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, HERE)
import bench_kinds  # noqa: E402  (the kinds of row, a timed row's figure)
import qemu  # noqa: E402  (tools/qemu.py: the one QEMU command line)
sys.path.insert(0, os.path.join(HERE, "plugin"))
import wake_path  # noqa: E402  (tools/plugin/wake_path.py)

TABLE_RUNS = (10, 20, 30, 40, 50)
TAIL_LINES = 30
RE_BENCH = re.compile(r"^BENCH\s+(\S+)\s+(\S+)\s+(\d+)((?:\s+-?\d+)*)\s*$")
RE_DONE = re.compile(r"^BENCH-DONE\s+(\d+)\s*$")
# BENCH-STAT <name> <key> <value>: a figure of a benchmark that its
# samples do not give (the mean and p99 of a distribution the guest
# summarized as percentiles); it goes into the result object as key.
RE_STAT = re.compile(r"^BENCH-STAT\s+(\S+)\s+([a-z0-9_]+)\s+(-?\d+(?:\.\d+)?)\s*$")
STATS = {}  # name -> {key: value}, from the first boot


class BenchError(Exception):
    """A boot or log that cannot be used; carries the log tail."""

    def __init__(self, message, lines=()):
        super().__init__(message)
        self.tail = list(lines)[-TAIL_LINES:]


# ---------------------------------------------------------------- parsing

def parse_log(lines):
    """Return {name: (unit, samples)} from a boot's output lines.

    Raises BenchError on a PANIC line, a malformed BENCH line, a missing
    BENCH-DONE, or a BENCH-DONE count that disagrees with the BENCH lines.
    """
    benches, done = {}, None
    for line in lines:
        line = line.rstrip("\r\n")
        if line.startswith("PANIC"):
            raise BenchError(f"kernel panic: {line}", lines)
        if m := RE_DONE.match(line):
            done = int(m.group(1))
        elif m := RE_STAT.match(line):
            value = float(m.group(3))
            STATS.setdefault(m.group(1), {}).setdefault(
                m.group(2), int(value) if value.is_integer() else value)
        elif line.startswith("BENCH "):
            name, unit, samples = parse_bench_line(line, lines)
            if name in benches:
                warn(f"duplicate BENCH {name}, keeping the last one")
            benches[name] = (unit, samples)
    if done is None:
        raise BenchError("no BENCH-DONE line", lines)
    if done != len(benches):
        raise BenchError(f"BENCH-DONE {done} but {len(benches)} "
                         "BENCH lines", lines)
    return benches


def parse_bench_line(line, lines):
    """Split one BENCH line into (name, unit, samples), checking n."""
    m = RE_BENCH.match(line)
    if not m:
        raise BenchError(f"malformed BENCH line: {line}", lines)
    samples = [int(v) for v in m.group(4).split()]
    if len(samples) != int(m.group(3)) or not samples:
        raise BenchError(f"BENCH {m.group(1)}: n={m.group(3)} but "
                         f"{len(samples)} samples", lines)
    return m.group(1), m.group(2), samples


def add_plugin_results(benches, lines, plugin_lines):
    """Add the wake_path plugin's results (and their fields) for the
    guest's WAKE-PATH-SEG lines to `benches`; BenchError if the plugin
    has none for one of them."""
    try:
        found, stats = wake_path.results(lines, plugin_lines)
    except wake_path.PluginError as exc:
        raise BenchError(f"wake_path plugin: {exc}", lines) from exc
    for name, fields in stats.items():
        for key, value in fields.items():
            STATS.setdefault(name, {}).setdefault(key, value)
    benches.update(found)
    return benches


def read_log(path):
    """Read a saved log file into lines."""
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read().splitlines()


# ------------------------------------------------------------- statistics

def summarize(samples):
    """Return runs/min/median/max/mean; median is the lower-middle sample."""
    ordered = sorted(samples)
    return {
        "runs": len(samples),
        "min": ordered[0],
        "median": ordered[(len(ordered) - 1) // 2],
        "max": ordered[-1],
        "mean": round(sum(samples) / len(samples), 3),
    }


def paper_table(samples):
    """Paper-shaped rows: total/average/max of the first k samples."""
    rows = []
    for k in TABLE_RUNS:
        if k > len(samples):
            break
        first = samples[:k]
        rows.append({"runs": k, "total": sum(first),
                     "average": sum(first) // k, "max": max(first)})
    return rows


def meta_entry(meta, name):
    """The meta entry of a benchmark: its own, else the first entry whose
    key is a pattern (with * or ?) that matches the name, else {}."""
    if name in meta:
        return meta[name] or {}
    for key, entry in meta.items():
        if "*" in key or "?" in key:
            if fnmatch.fnmatchcase(name, key):
                return entry or {}
    return {}


def build_result(name, unit, samples, meta):
    """Build one results.json object for a benchmark."""
    entry = meta_entry(meta, name)
    result = {"name": name, "unit": unit}
    result.update(summarize(samples))
    result["samples"] = samples
    result["table"] = paper_table(samples)
    result["paper"] = entry.get("paper")
    result["bound"] = entry.get("bound")
    result.update(STATS.get(name, {}))
    return with_kind(result, meta)


def with_kind(result, meta):
    """Set a result's "kind" (and, if timed, its "note"); return it."""
    kind = bench_kinds.result_kind(meta_entry(meta, result["name"]),
                                   result["name"],
                                   bench_kinds.timed_inputs(meta))
    result["kind"] = kind
    if kind == "timed":
        result["note"] = bench_kinds.SINGLE_BOOT
    return result


def timed_ratio_results(results, meta):
    """One result per timed row whose figure is a ratio of two results
    (bench_kinds.figure) that are both in `results`: this run's single
    value of it, not decided."""
    by_name = {r["name"]: r for r in results}
    out = []
    for name, entry in bench_kinds.timed_rows(meta).items():
        spec = entry.get("timed") or {}
        if not spec.get("den"):
            continue
        num = by_name.get(spec["num"]["result"])
        den = by_name.get(spec["den"]["result"])
        value = bench_kinds.figure(spec, num, den)
        if value is None:
            continue
        result = build_result(name, entry.get("unit", "ratio"),
                              [round(value, 6)], meta)
        result["inputs"] = [num["name"], den["name"]]
        out.append(result)
    return out


# ----------------------------------------------------------------- report

def format_bench(res, meta):
    """Return the report lines for one benchmark result."""
    desc = meta_entry(meta, res["name"]).get("description", "(no meta)")
    paper = res.get("paper")
    out = [f"{res['name']}: {desc} [{res['unit']}]"]
    out += format_table(res, paper)
    out.append(f"  runs {res['runs']}  min {res['min']}  median "
               f"{res['median']}  max {res['max']}  mean {res['mean']}")
    out.append("  " + median_line(res["median"], paper))
    if res.get("kind") == "timed":
        out.append(f"  timed: {bench_kinds.SINGLE_BOOT} (make bench-timed "
                   "decides it)")
    return out


def format_table(res, paper):
    """Fulcrum's table with the paper's rows side by side (if any)."""
    ours = {row["runs"]: row for row in res.get("table") or []}
    theirs = {r[0]: r for r in (paper or {}).get("rows", [])}
    head = f"  {'runs':>5} | {'total':>10} {'average':>8} {'max':>8}"
    title = f"  {'':>5} | {'Fulcrum (' + res['unit'] + ')':<28}"
    if paper:
        head += f" | {'total':>10} {'average':>8} {'max':>8}"
        title += (f" | paper {paper.get('source', '?')} "
                  f"({paper.get('unit', '?')})")
    lines = [title.rstrip(), head]
    if not ours and not theirs:
        lines.append(f"  (fewer than {TABLE_RUNS[0]} samples: no table)")
    for k in sorted(set(ours) | set(theirs)):
        row = ours.get(k)
        cells = ([row["total"], row["average"], row["max"]] if row
                 else ["-", "-", "-"])
        line = f"  {k:>5} | {cells[0]:>10} {cells[1]:>8} {cells[2]:>8}"
        if paper:
            p = theirs.get(k, [k, "-", "-", "-"])
            line += f" | {p[1]:>10} {p[2]:>8} {p[3]:>8}"
        lines.append(line)
    return lines


def median_line(median, paper):
    """`median X (paper average Y, ratio Y/X = Zx)`."""
    if not paper or paper.get("average") is None:
        return f"median {median}"
    # compare_average: the paper's figure in the unit of ours, when its
    # table is in another unit (IPC: microseconds -> cycles)
    avg = paper.get("compare_average", paper["average"])
    ratio = f"{avg / median:.1f}x" if median else "n/a"
    return f"median {median} (paper average {avg}, ratio {avg}/{median} = {ratio})"


def format_report(results, meta):
    """Return the whole report as a list of lines."""
    lines = []
    for res in results:
        lines += format_bench(res, meta) + [""]
    return lines


# ----------------------------------------------------------------- driver

def warn(message):
    """Print a warning on stderr."""
    print(f"bench_report: warning: {message}", file=sys.stderr)


def print_failure(exc):
    """Print a BenchError and the tail of its log."""
    print(f"bench_report: FAILED: {exc}")
    if exc.tail:
        print(f"    --- last {len(exc.tail)} lines ---")
    for line in exc.tail:
        print(f"    | {line}")


def boot(opts, index):
    """Boot the kernel once; return its parsed {name: (unit, samples)}
    (the plugin's results added with --wake-path-plugin)."""
    return boot_lines(opts, index)[1]


def boot_lines(opts, index):
    """Boot the kernel once; return (its console lines, its parsed
    {name: (unit, samples)}) (boot)."""
    icount = qemu.ICOUNT_DISK_ARGS if opts.disk else qemu.ICOUNT_ARGS
    extra = ([] if opts.no_icount else icount) + \
        shlex.split(opts.extra_qemu_args) + \
        (qemu.disk_args(opts.disk) if opts.disk else [])
    log = os.path.join(opts.out, f"boot{index}.log")
    print(f"bench: boot {index} (-smp {opts.cpus} \"{opts.append}\"), "
          f"log {log}", flush=True)
    plugin = opts.wake_path_plugin
    try:
        plugin_argv = wake_path.plugin_argv(opts.kernel) if plugin else ()
    except (OSError, subprocess.CalledProcessError,
            wake_path.PluginError) as exc:
        raise BenchError(f"wake_path plugin: {exc}") from exc
    res = qemu.run_qemu(opts.kernel, opts.cpus, opts.append, opts.timeout,
                        log, extra, gic=opts.gic or None, plugin=plugin,
                        plugin_argv=plugin_argv)
    if res.error:
        raise BenchError(res.error, res.output)
    if res.timed_out:
        raise BenchError(f"timeout after {opts.timeout:g}s", res.lines)
    print(f"bench: boot {index} took {res.elapsed:.1f}s", flush=True)
    benches = parse_log(res.lines)
    if plugin:
        add_plugin_results(benches, res.lines,
                           [s for s in res.stderr
                            if wake_path.is_plugin_line(s)])
    return res.lines, benches


def from_log(path):
    """Parse a saved log (the plugin's lines too, if it has them)."""
    lines = read_log(path)
    benches = parse_log(lines)
    plugin_lines = [s for s in lines if wake_path.is_plugin_line(s)]
    if plugin_lines:
        add_plugin_results(benches, lines, plugin_lines)
    return benches


def collect_boots(opts):
    """Return one parsed {name: (unit, samples)} dict per boot or log."""
    if opts.from_log:
        return [from_log(path) for path in opts.from_log]
    if not opts.kernel:
        sys.exit("bench_report: need --kernel or --from-log")
    return [boot(opts, i) for i in range(1, opts.repeat + 1)]


def boots_medians(boots):
    """One parsed boot from several: each result's samples are the
    boots' medians of it, in boot order (results every boot has)."""
    names = [n for n in boots[0] if all(n in b for b in boots)]
    return {n: (boots[0][n][0],
                [bench_kinds.median(b[n][1]) for b in boots])
            for n in names}


def rename(boot, only, suffix):
    """Keep the results named in the comma-separated `only` (all if
    empty; a name may be a pattern with * or ?), each renamed with
    `suffix` appended."""
    keep = set(filter(None, only.split(",")))
    return {name + suffix: v for name, v in boot.items()
            if not keep or any(fnmatch.fnmatchcase(name, k) for k in keep)}


def differing_benches(boots):
    """Names whose samples (or presence) differ between any two boots."""
    first, differ = boots[0], set()
    for other in boots[1:]:
        for name in set(first) | set(other):
            if first.get(name) != other.get(name):
                differ.add(name)
    return sorted(differ)


def load_json(path, default):
    """Load JSON from path, or return default if the file is absent."""
    if not os.path.exists(path):
        return default
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def merge_results(old, new):
    """Replace entries of `old` by name with `new`, appending new names."""
    by_name = {r["name"]: r for r in new}
    merged = [by_name.pop(r["name"], r) for r in old]
    return merged + [r for r in new if r["name"] in by_name]


def write_outputs(out_dir, results, report):
    """Write results.json and results.txt."""
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "results.json"), "w",
              encoding="utf-8") as f:
        json.dump(results, f, indent=2)
        f.write("\n")
    with open(os.path.join(out_dir, "results.txt"), "w",
              encoding="utf-8") as f:
        f.write("\n".join(report) + "\n")


def parse_args(argv):
    """Parse the command line."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", help="kernel ELF to boot")
    ap.add_argument("--cpus", type=int, default=4)
    ap.add_argument("--meta", default=os.path.join(HERE, "bench_meta.json"))
    ap.add_argument("--out", default="build/bench")
    ap.add_argument("--repeat", type=int, default=1,
                    help="boots to run; >1 checks determinism")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--append", default="bench=all",
                    help="kernel command line (default bench=all)")
    ap.add_argument("--extra-qemu-args", default="",
                    help="extra QEMU arguments (one shell-quoted string)")
    ap.add_argument("--disk", metavar="IMG",
                    help="attach raw image IMG as a virtio-blk disk "
                         "(modern transport)")
    ap.add_argument("--no-icount", action="store_true",
                    help="multi-threaded TCG instead of -icount (for "
                         "ratios measured within one run)")
    ap.add_argument("--gic", type=int, default=0, choices=(0, 2, 3),
                    help="GIC version (0: qemu.py's choice for --cpus)")
    ap.add_argument("--only", default="",
                    help="keep only these results (comma-separated names "
                         "or patterns such as 'wake_irqmask_*')")
    ap.add_argument("--suffix", default="",
                    help="append this to every result name kept (e.g. "
                         "_gicv3: the same benchmarks on GICv3)")
    ap.add_argument("--wake-path-plugin", metavar="SO",
                    help="load the wake_path TCG plugin (build/plugin/"
                         "wake_path.so) and add its wake_path_* results")
    ap.add_argument("--merge", action="store_true",
                    help="merge into an existing results.json by name")
    ap.add_argument("--median-of-boots", action="store_true",
                    help="samples = each boot's median; no determinism "
                         "check")
    ap.add_argument("--from-log", action="append", metavar="FILE",
                    help="parse a saved log instead of booting "
                         "(repeatable)")
    return ap.parse_args(argv)


def main(argv=None):
    """Boot (or read logs), write results and report, check determinism."""
    opts = parse_args(argv)
    meta = load_json(opts.meta, {})
    try:
        boots = [rename(b, opts.only, opts.suffix)
                 for b in collect_boots(opts)]
    except BenchError as exc:
        print_failure(exc)
        return 1
    if opts.median_of_boots:
        boots = [boots_medians(boots)]
    results = [build_result(n, u, s, meta) for n, (u, s) in boots[0].items()]
    if opts.merge:
        old = load_json(os.path.join(opts.out, "results.json"), [])
        results = merge_results(old, results)
    results = merge_results(results, timed_ratio_results(results, meta))
    for name in ([] if opts.merge else meta):
        if "*" in name or "?" in name:
            continue
        if name not in {r["name"] for r in results}:
            warn(f"meta entry {name} not in the benchmark output")
    report = format_report(results, meta)
    differ = differing_benches(boots) if len(boots) > 1 else []
    if len(boots) > 1:
        report.append("determinism: identical" if not differ else
                      "determinism: DIFFERENT: " + ", ".join(differ))
    write_outputs(opts.out, results, report)
    print("\n".join(report))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
