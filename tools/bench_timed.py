#!/usr/bin/env python3
"""`make bench-timed [N=20] [ROWS=a,b]`: decide the timed rows.

    bench_timed.py --kernel K [--n N] [--rows a,b] [--out build/bench]
    bench_timed.py --list

A timed row of tools/bench_meta.json (tools/bench_kinds.py) is measured
in time under multi-threaded TCG, so one boot gives one sample of it.
This boots in rounds: each round boots, once each, every boot of BOOTS
that the selected rows need, in BOOTS' order; a row whose numerator and
denominator come from two boots so gets A, B, A, B, ... and one figure
per pair, and rows of one boot share its boots. Every boot goes through
tools/bench_report.py (its options, boot, parse_log, build_result), so
through tools/qemu.py; logs in OUT/timed/<boot>/boot<i>.log. After N
rounds (default: the largest "boots" of the rows), per row: the figures,
their median, the distribution-free 95 % interval of the median and the
decision, merged by row name into OUT/timed.json, each row with the
commit and date of its boots. A failed boot stops the run and writes
nothing: dropping it would bias the figures. Each boot's results are
kept in OUT/timed/<boot>/round<i>.json with the commit; --resume takes
them up again for the same clean commit, so a run longer than a working
session can be continued (`make bench-timed RESUME=1`).
"""

import argparse
import collections
import datetime
import fnmatch
import json
import os
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "harness"))
import bench_check  # noqa: E402  (the decision line)
import bench_kinds  # noqa: E402
import bench_report  # noqa: E402  (the boot and its parsing)
import ext2_image  # noqa: E402  (the ext2 image of the storage boots)
import trace_export  # noqa: E402  (the lost records of a traced boot)
import trace_run  # noqa: E402  (the traced scenarios' boot arguments)
import sim_bench  # noqa: E402  (the simulator's speed runs)

Boot = collections.namedtuple("Boot", "args ext2 trace_lost host",
                              defaults=(False, None, False))


def trace_boot_args(scenario):
    """bench_report.py's options for make trace's `scenario` with the
    scheduler records on (trace_run.py: its cores, timeout and rings)."""
    sc = trace_run.SCENARIOS[scenario]
    return (f"--cpus {sc.cpus} --timeout {sc.timeout} --append "
            f"{trace_run.boot_args(sc, 'sched')}")


# The boots of the timed rows: bench_report.py's options (the same as
# make bench's boot of that benchmark; --no-icount is added), whether a
# fresh ext2 image is attached (and must pass e2fsck -fn afterwards),
# and the result name under which a traced boot's lost records go
# (make bench's trace_lost_matmul: make trace SCENARIO=matmul).
BOOTS = {
    "matmul3": Boot("--cpus 3 --timeout 900 --append ubench=matmul"),
    "alb": Boot("--cpus 4 --timeout 900 --append ubench=alb"),
    "files_mttcg": Boot("--cpus 4 --append ubench=files_mttcg,disk,"
                        "cache=64,fs,form=4,fs_spin=200", ext2=True),
    "postmark": Boot("--cpus 4 --timeout 3000 --append ubench=postmark,"
                     "disk,cache=1024,fs,fs_spin=200", ext2=True),
    "bonnie": Boot("--cpus 4 --timeout 3000 --append ubench=bonnie,"
                   "disk,cache=1024,fs,fs_spin=200", ext2=True),
    "matmul_trace": Boot(trace_boot_args("matmul"),
                         trace_lost="trace_lost_matmul"),
    # Not a QEMU boot: one run of the simulator's speed workload on the
    # host (tools/sim_bench.py's sim_events_per_s), timed in CPU time.
    "sim_speed": Boot("--speed --repeat 1", host=True),
}


# ------------------------------------------------------------- selection

def select_rows(meta, rows):
    """{name: entry} of the timed rows named in the comma-separated
    `rows` (names or patterns; all timed rows if empty); exits on a name
    that matches no timed row."""
    timed = bench_kinds.timed_rows(meta)
    wanted = [r for r in rows.split(",") if r]
    if not wanted:
        return timed
    chosen = {}
    for want in wanted:
        hits = [n for n in timed if fnmatch.fnmatchcase(n, want)]
        if not hits:
            sys.exit(f"bench_timed: {want!r} is no timed row "
                     f"(bench_timed.py --list)")
        chosen.update((n, timed[n]) for n in hits)
    return {n: timed[n] for n in timed if n in chosen}


def boots_of(rows):
    """The boot names the rows need, in BOOTS' order."""
    needed = {rows[n]["timed"][side]["boot"] for n in rows
              for side in ("num", "den") if rows[n]["timed"].get(side)}
    return [b for b in BOOTS if b in needed]


def describe(name, entry):
    """One row's definition as text (bench_timed.py --list)."""
    spec = entry["timed"]
    num, den = spec["num"], spec.get("den")
    what = f"{num['result']} ({num['boot']})"
    if den:
        how = "median of per-repetition ratios" if spec.get("paired") \
            else "ratio of medians"
        what += f" / {den['result']} ({den['boot']}), {how}"
    else:
        what += ", median"
    return (f"{name}: {what}; bound {bench_kinds.bound_text(entry['bound'])}"
            f"; {spec['boots']} boots")


# ----------------------------------------------------------------- boots

def run_boot(name, index, opts, meta):
    """Boot BOOTS[name] once (round `index`); return {result name:
    result} of that boot. Raises bench_report.BenchError."""
    boot = BOOTS[name]
    if boot.host:
        return run_sim(boot, opts, meta)
    out = os.path.join(opts.out, "timed", name)
    argv = ["--kernel", opts.kernel, "--no-icount", "--out", out,
            "--meta", opts.meta] + shlex.split(boot.args)
    image = os.path.join(out, "ext2.img")
    if boot.ext2:
        ext2_image.prepare(image)
        argv += ["--disk", image]
    bench_report.STATS.clear()  # BENCH-STAT figures of this boot only
    lines, benches = bench_report.boot_lines(bench_report.parse_args(argv),
                                             index)
    problem = ext2_image.fsck_problem(image) if boot.ext2 else None
    if problem:
        raise bench_report.BenchError(f"{name}: {problem}", lines)
    results = {n: bench_report.build_result(n, u, s, meta)
               for n, (u, s) in benches.items()}
    if boot.trace_lost:
        results[boot.trace_lost] = bench_report.build_result(
            boot.trace_lost, "records", [trace_lost(lines)], meta)
    return results


def run_sim(boot, opts, meta):
    """One run of the simulator with BOOTS' arguments: {result name:
    result} (tools/sim_bench.py names them). Raises BenchError."""
    if not opts.sim:
        raise bench_report.BenchError("sim_speed: need --sim", [])
    cmd = [opts.sim] + shlex.split(boot.args)
    try:
        doc = sim_bench.run_json(cmd)
    except (RuntimeError, ValueError) as exc:
        raise bench_report.BenchError(f"sim_speed: {exc}", []) from None
    return {r["name"]: r for r in sim_bench.speed_results(doc, meta)}


def trace_lost(lines):
    """Records lost in the trace rings, from a traced boot's dump."""
    try:
        dump = trace_export.parse("\n".join(lines))
    except trace_export.DumpError as exc:
        raise bench_report.BenchError(f"trace dump: {exc}", lines) from None
    return sum(dump.lost().values())


def round_path(opts, name, index):
    """Where boot `name`'s results of round `index` are kept."""
    return os.path.join(opts.out, "timed", name, f"round{index}.json")


def kept_round(opts, name, index, stamp):
    """With --resume, the results of boot `name` in round `index` from an
    earlier run of the same clean commit; else None."""
    if not opts.resume or stamp["dirty"]:
        return None
    kept = bench_report.load_json(round_path(opts, name, index), {})
    if kept.get("commit") != stamp["commit"] or kept.get("dirty"):
        return None
    return kept.get("results")


def one_round_boot(name, index, opts, meta, stamp):
    """Boot `name` for round `index` (or take the kept results of an
    interrupted run: kept_round) and keep its results on disk."""
    results = kept_round(opts, name, index, stamp)
    if results is not None:
        print(f"bench_timed: round {index}: {name} kept from an earlier "
              f"run of {stamp['commit'][:12]}", flush=True)
        return results
    results = run_boot(name, index, opts, meta)
    path = round_path(opts, name, index)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(dict(stamp, results=results), f)
    return results


def run_rounds(boots, n, opts, meta, stamp):
    """Boot every one of `boots` once per round, n rounds; return one
    {boot: results} per round. Each boot's results are kept on disk, so
    that --resume can take up an interrupted run of the same commit."""
    rounds = []
    for i in range(1, n + 1):
        print(f"bench_timed: round {i} of {n}: {', '.join(boots)}",
              flush=True)
        rounds.append({b: one_round_boot(b, i, opts, meta, stamp)
                       for b in boots})
    return rounds


# --------------------------------------------------------------- figures

def row_samples(name, spec, rounds):
    """One figure of the row per round (bench_kinds.figure); raises
    BenchError if a round lacks one of its results."""
    samples = []
    for i, boots in enumerate(rounds, 1):
        num = boots[spec["num"]["boot"]].get(spec["num"]["result"])
        den = (boots[spec["den"]["boot"]].get(spec["den"]["result"])
               if spec.get("den") else None)
        value = bench_kinds.figure(spec, num, den)
        if value is None:
            raise bench_report.BenchError(
                f"{name}: round {i} gave no figure (results "
                f"{spec['num']['result']}, "
                f"{(spec.get('den') or {}).get('result')})")
        samples.append(value)
    return samples


def row_record(entry, samples, stamp):
    """The timed.json record of one row from its per-round figures."""
    ci = bench_kinds.median_ci(samples)
    decision, why = bench_kinds.decide(entry["bound"], ci, len(samples))
    record = {"bound": entry["bound"], "n": len(samples),
              "samples": samples, "median": bench_kinds.median(samples),
              "ci": ci, "ranks": bench_kinds.median_ci_ranks(len(samples)),
              "decision": decision, "why": why}
    record.update(stamp)
    return record


def stamp_now():
    """{commit, dirty, date} of this run: git rev-parse HEAD, whether
    tracked files differ from it, the UTC time."""
    def git(*args):
        """git's output in the source tree, stripped."""
        return subprocess.run(["git", "-C", ROOT, *args], text=True,
                              capture_output=True).stdout.strip()
    date = datetime.datetime.now(datetime.timezone.utc)
    return {"commit": git("rev-parse", "HEAD") or "unknown",
            "dirty": bool(git("status", "--porcelain",
                              "--untracked-files=no")),
            "date": date.strftime("%Y-%m-%dT%H:%M:%SZ")}


def merge_timed(path, records, stamp):
    """Merge {row: record} into the timed.json at path by row name (the
    other rows keep theirs); return the merged content."""
    old = bench_report.load_json(path, {})
    merged = dict(stamp)
    merged["rows"] = dict(old.get("rows", {}))
    merged["rows"].update(records)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(merged, f, indent=2)
        f.write("\n")
    return merged


# ---------------------------------------------------------------- driver

def parse_args(argv):
    """Parse the command line."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", help="kernel ELF to boot")
    ap.add_argument("--sim", help="fulsim, for the sim_speed runs")
    ap.add_argument("--meta", default=os.path.join(HERE, "bench_meta.json"))
    ap.add_argument("--out", default="build/bench",
                    help="writes OUT/timed.json, logs in OUT/timed/")
    ap.add_argument("--n", type=int, default=0,
                    help="rounds of boots (default: the rows' \"boots\")")
    ap.add_argument("--rows", default="",
                    help="comma-separated timed rows or patterns (all)")
    ap.add_argument("--resume", action="store_true",
                    help="take the boots an interrupted run of the same "
                         "clean commit kept (OUT/timed/<boot>/round<i>.json)")
    ap.add_argument("--list", action="store_true",
                    help="print the timed rows' definitions and stop")
    return ap.parse_args(argv)


def main(argv=None):
    """Run the rounds, decide the rows, merge them into timed.json."""
    opts = parse_args(argv)
    meta = bench_report.load_json(opts.meta, {})
    problems = bench_kinds.meta_problems(meta, set(BOOTS))
    if problems:
        sys.exit("bench_timed: " + "\n  ".join(problems))
    rows = select_rows(meta, opts.rows)
    if opts.list:
        print("\n".join(describe(n, e) for n, e in rows.items()))
        return 0
    if not opts.kernel:
        sys.exit("bench_timed: need --kernel")
    n = opts.n or max(e["timed"]["boots"] for e in rows.values())
    if n < bench_kinds.MIN_BOOTS:
        print(f"bench_timed: N={n} < {bench_kinds.MIN_BOOTS}: every row "
              "stays INCONCLUSIVE (a run of the machinery only)")
    stamp = stamp_now()
    try:
        rounds = run_rounds(boots_of(rows), n, opts, meta, stamp)
        records = {name: row_record(e, row_samples(name, e["timed"],
                                                   rounds), stamp)
                   for name, e in rows.items()}
    except bench_report.BenchError as exc:
        bench_report.print_failure(exc)
        print("bench_timed: nothing written")
        return 1
    path = os.path.join(opts.out, "timed.json")
    merge_timed(path, records, stamp)
    for name, e in rows.items():
        _, lines = bench_check.check_timed(name, e["bound"], records[name],
                                           None)
        print("\n".join(lines))
        print(f"  samples {[round(x, 4) for x in records[name]['samples']]}")
    print(f"bench_timed: {len(records)} rows into {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
