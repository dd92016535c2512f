#!/usr/bin/env python3
"""`make bench-smoke` (and part of `make test`): every benchmark boot of
`make bench`, once, with boot argument bench_quick (user/bench/ub.h), and
the simulator's and the trace rings' benchmark tools at their smallest
sizes. No figure is checked against anything: a run passes when it
gives well-formed results.

    bench_smoke.py --kernel K --kernel-irqstat KI --kernel-notrace KN
                   --sim FULSIM --out DIR [NAME...]

A boot passes iff QEMU runs it to its end within --timeout, it prints
no PANIC line, every BENCH line is well-formed (tools/bench_report.py's
parser: name, unit, n and n integer samples), BENCH-DONE counts them
and at least one result is kept; a boot on an ext2 image must also
leave it clean for e2fsck -fn. The two tools (sim_bench.py,
trace_bench.py) must exit 0 and add well-formed results to
DIR/results.json (a unit, numeric samples and median). Then `coverage`:
every benchmark that bench_meta.json bounds, but bench-linux's linux_*,
must be among the results (make bench-check fails on a missing one
after a full make bench). Each run is one test of the protocol that
tests/harness/run_tests.py reads (TEST-PASS / TEST-FAIL / TEST-DONE);
NAMEs run only those runs (and no coverage test).
"""

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "harness"))
import bench_kinds  # noqa: E402  (the kind of a bounded row)
import bench_report  # noqa: E402
import ext2_image  # noqa: E402  (the image the storage benchmarks read)

TAIL_LINES = 30
QUICK = "bench_quick"
DISK_BYTES = 4 << 20  # make bench's zeroed image for D and B
LINUX_PREFIX = "linux_"  # make bench-linux's results, not make bench's


@dataclass
class Boot:
    """One boot of make bench: bench_report.py's arguments as the
    Makefile's bench rule gives them, which kernel, which disk."""

    name: str
    args: str
    kernel: str = "default"  # or "irqstat"
    disk: str = None         # None, "zero" (4 MiB of zeros) or "ext2"
    plugin: bool = False     # with the wake_path TCG plugin, as make bench


# The boots of the Makefile's bench rule, in its order, with the same
# ubench= values (tests/host/test_bench_smoke.py compares the two).
# STORAGE: paper 002's boots, B with 1,024 lines.
STORAGE = "disk,cache=1024,fs"
BOOTS = [
    Boot("kernel", "--cpus 4 --append bench=all"),
    Boot("kernel_gicv3", "--cpus 4 --gic 3 --append bench=all "
         "--only sgi_trigger,sgi_handle,mailbox_post --suffix _gicv3"),
] + [Boot(n, f"--cpus 4 --append ubench={a}") for n, a in (
    ("ipc", "ipc"), ("ipc_slowpath", "ipc,fastpath=0"), ("lb", "lb"),
    ("migrate", "migrate"), ("frame", "frame"), ("sys", "sys"))] + [
    Boot("wake", "--cpus 4 --append ubench=wake", plugin=True),
    Boot("wake_mttcg", "--no-icount --cpus 2 "
         "--append ubench=wake,wake_mttcg,wake_samples=2000"),
    Boot("wake_here", "--cpus 4 "
         "--append ubench=wake,wake_policy=off,wake_stress_here",
         plugin=True),
    Boot("irqstat_wake", "--cpus 4 --append ubench=wake "
         "--only wake_irqmask_*", kernel="irqstat"),
    Boot("irqstat_wake_here", "--cpus 4 --append "
         "ubench=wake,wake_policy=off,wake_stress_here "
         "--only wake_irqmask_*", kernel="irqstat"),
    Boot("irqstat_wake_mttcg", "--no-icount --cpus 2 --append "
         "ubench=wake,wake_mttcg,wake_samples=2000 --only wake_irqmask_*",
         kernel="irqstat"),
    Boot("mttcg", "--no-icount --cpus 4 --append ubench=mttcg"),
    Boot("matmul4", "--no-icount --cpus 4 --append ubench=matmul"),
    Boot("matmul3", "--no-icount --cpus 3 --append ubench=matmul"),
    Boot("alb", "--no-icount --cpus 4 --append ubench=alb"),
    Boot("disk", "--cpus 4 --append ubench=disk,disk", disk="zero"),
    Boot("cache", "--cpus 4 --append ubench=cache,disk,cache=64",
         disk="zero"),
    Boot("files", "--cpus 4 --append ubench=files,disk,cache=64,fs,form=1",
         disk="ext2"),
    Boot("files_mttcg", "--no-icount --cpus 4 --append "
         "ubench=files_mttcg,disk,cache=64,fs,form=4,fs_spin=200",
         disk="ext2"),
    Boot("forms", f"--cpus 4 --append ubench=forms,{STORAGE}", disk="ext2"),
    Boot("forms_b", f"--cpus 4 --append ubench=forms_b,{STORAGE},fs_copy=0",
         disk="ext2"),
    Boot("bonnie_split", f"--cpus 4 --append ubench=bonnie_split,{STORAGE}",
         disk="ext2"),
] + [Boot(b, f"--no-icount --cpus 4 --append ubench={b},{STORAGE},fs_spin=200",
          disk="ext2") for b in ("forms_mttcg", "postmark", "bonnie")]
TOOLS = ("sim", "trace")  # after the boots: trace reads ipc's results


def log_tail(lines):
    """Print the last lines of a log, indented (into run_tests' log)."""
    for line in list(lines)[-TAIL_LINES:]:
        print(f"    | {line.rstrip()}")


def merge_into(out, new):
    """Merge result objects @new into OUT/results.json by name."""
    path = os.path.join(out, "results.json")
    merged = bench_report.merge_results(bench_report.load_json(path, []),
                                        new)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(merged, f, indent=2)
        f.write("\n")


def prepare_disk(kind, path):
    """A fresh image of @kind at @path, as make bench makes it."""
    if kind == "ext2":
        ext2_image.prepare(path)
        return
    with open(path, "wb") as f:
        f.truncate(DISK_BYTES)


def run_boot(boot, opts, meta):
    """Boot @boot once with bench_quick; None, or why it failed."""
    rundir = os.path.join(opts.out, boot.name)
    os.makedirs(rundir, exist_ok=True)
    kernel = opts.kernel_irqstat if boot.kernel == "irqstat" else opts.kernel
    argv = shlex.split(boot.args) + ["--kernel", kernel, "--out", rundir,
                                     "--timeout", str(opts.timeout)]
    img = None
    if boot.disk:
        img = os.path.join(rundir, "disk.img")
        prepare_disk(boot.disk, img)
        argv += ["--disk", img]
    if boot.plugin:
        argv += ["--wake-path-plugin", opts.wake_plugin]
    bopts = bench_report.parse_args(argv)
    bopts.append += "," + QUICK
    try:
        (results,) = bench_report.collect_boots(bopts)
    except bench_report.BenchError as exc:
        log_tail(exc.tail)
        return str(exc)
    results = bench_report.rename(results, bopts.only, bopts.suffix)
    if not results:
        return "no BENCH line" + (f" matching {bopts.only}" if bopts.only
                                  else "")
    merge_into(opts.out, [bench_report.build_result(n, u, s, meta)
                          for n, (u, s) in results.items()])
    why = ext2_image.fsck_problem(img) if boot.disk == "ext2" else None
    if img and not why:
        os.remove(img)  # an image stays only beside its failed boot
    return why


def tool_command(name, opts):
    """The command of tool @name at its smallest size."""
    if name == "sim":
        return [sys.executable, os.path.join(HERE, "sim_bench.py"),
                "--sim", opts.sim, "--out", opts.out, "--sets", "5",
                "--repeat", "1", "--runs", "20"]
    return [sys.executable, os.path.join(HERE, "trace_bench.py"),
            "--kernel", opts.kernel, "--kernel-notrace", opts.kernel_notrace,
            "--out", opts.out, "--quick"]


def entry_problem(r):
    """Why a results.json object is not well-formed (None: it is)."""
    samples = r.get("samples")
    if not isinstance(r.get("unit"), str) or not r.get("unit"):
        return f"{r.get('name')}: no unit"
    if not samples or not all(isinstance(v, (int, float)) and
                              not isinstance(v, bool) for v in samples):
        return f"{r.get('name')}: samples {samples!r}"
    if not isinstance(r.get("median"), (int, float)):
        return f"{r.get('name')}: median {r.get('median')!r}"
    return None


def run_tool(name, opts):
    """Run tool @name; None, or why it failed: it must exit 0 and add
    results to OUT/results.json, each well-formed."""
    path = os.path.join(opts.out, "results.json")
    before = {r["name"] for r in bench_report.load_json(path, [])}
    res = subprocess.run(tool_command(name, opts), capture_output=True,
                         text=True, timeout=opts.timeout, check=False)
    if res.returncode:
        log_tail((res.stdout + res.stderr).splitlines())
        return f"exit {res.returncode}"
    new = [r for r in bench_report.load_json(path, [])
           if r["name"] not in before]
    if not new:
        return "no results added to results.json"
    problems = [p for p in map(entry_problem, new) if p]
    return "; ".join(problems[:5]) or None


def covered(name, entry, have):
    """Did the smoke give bounded row @name what decides it: its own
    result, or for a timed row (bench_kinds) the results its per-boot
    figure is made of?"""
    if name in have:
        return True
    spec = entry.get("timed") if bench_kinds.row_kind(entry) == "timed" else None
    sides = [spec[s]["result"] for s in ("num", "den") if spec and spec.get(s)]
    return bool(sides) and all(r in have for r in sides)


def coverage_problem(opts, meta):
    """The bounded benchmarks (but linux_*) missing from the results."""
    have = {r["name"] for r in bench_report.load_json(
        os.path.join(opts.out, "results.json"), [])}
    missing = sorted(n for n, e in meta.items()
                     if e and e.get("bound") and
                     not n.startswith(LINUX_PREFIX) and
                     not covered(n, e, have))
    if not missing:
        return None
    return (f"{len(missing)} bounded benchmarks gave no result: "
            f"{', '.join(missing[:8])}")


def parse_args(argv):
    """Parse the command line."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--kernel-irqstat", required=True)
    ap.add_argument("--kernel-notrace", required=True)
    ap.add_argument("--sim", required=True)
    ap.add_argument("--wake-plugin", required=True,
                    help="the wake_path TCG plugin (build/plugin/wake_path.so)")
    ap.add_argument("--out", default="build/bench-smoke")
    ap.add_argument("--meta", default=os.path.join(HERE, "bench_meta.json"))
    ap.add_argument("--timeout", type=float, default=120,
                    help="seconds per boot or tool (default 120)")
    ap.add_argument("names", nargs="*", metavar="NAME",
                    help="run only these (boot names and sim, trace)")
    opts = ap.parse_args(argv)
    known = [b.name for b in BOOTS] + list(TOOLS)
    if bad := [n for n in opts.names if n not in known]:
        ap.error(f"unknown {bad}; known: {' '.join(known)}")
    return opts


def main(argv=None):
    """Run every boot and tool (or those named), print the protocol."""
    opts = parse_args(argv)
    meta = bench_report.load_json(opts.meta, {})
    shutil.rmtree(opts.out, ignore_errors=True)  # results of this run only
    os.makedirs(opts.out)
    tests = [(b.name, lambda b=b: run_boot(b, opts, meta)) for b in BOOTS]
    tests += [(t, lambda t=t: run_tool(t, opts)) for t in TOOLS]
    tests = [t for t in tests if not opts.names or t[0] in opts.names]
    if not opts.names:
        tests.append(("coverage", lambda: coverage_problem(opts, meta)))
    failed = 0
    for name, test in tests:
        print(f"bench_smoke: {name}", flush=True)
        t0 = time.monotonic()
        try:
            why = test()
        except Exception as exc:  # noqa: BLE001 - any error fails the run
            why = f"{type(exc).__name__}: {exc}"
        print(f"bench_smoke: {name} took {time.monotonic() - t0:.1f}s")
        if why:
            failed += 1
            print(f"TEST-FAIL {name} :: {' '.join(why.split())}", flush=True)
        else:
            print(f"TEST-PASS {name}", flush=True)
    print(f"TEST-DONE {len(tests) - failed} {failed}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
