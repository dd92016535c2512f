#!/usr/bin/env python3
"""The trace rings' benchmark results (called by `make bench`):

    trace_bench.py --kernel K --kernel-notrace KN --out build/bench

  trace_record_off  instructions a hook costs on the switch path when its
                    class is off: ipc_call_short_same_core of K (hooks in,
                    tracing off: results.json of `make bench`) minus that
                    of KN (built with -DFUL_TRACE_OFF: no hooks), over the
                    PATH_HOOKS hooks that path passes
  trace_record_on   instructions of one record: ipc_call_short_same_core
                    with the switch class on (trace=1, one switch record
                    per call) minus with it off
  trace_lost_matmul records lost in the rings (4 MiB per core) over a
                    traced run of ubench=matmul (make trace SCENARIO=matmul
                    into OUT/trace: also the plots' trace)

Both IPC runs are booted under -icount (deterministic) by
tools/bench_report.py; their logs stay in OUT/trace-notrace, OUT/trace-on.
With --quick (make bench-smoke) the traced matmul boot adds bench_quick
(user/bench/ub.h): the same results from a boot of a few seconds.
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_report  # noqa: E402
import qemu  # noqa: E402
import trace_export  # noqa: E402
import trace_run  # noqa: E402

PATH = "ipc_call_short_same_core"
PATH_HOOKS = 2  # the fastpath's IPC call hook and the switch hook


def ipc_median(kernel, out, append):
    cmd = [sys.executable, os.path.join(HERE, "bench_report.py"),
           "--kernel", kernel, "--cpus", "4", "--repeat", "1",
           "--meta", os.path.join(HERE, "bench_meta.json"),
           "--out", out, "--append", append]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "results.json")) as f:
        return {r["name"]: r for r in json.load(f)}[PATH]["median"]


def traced_matmul(kernel, tdir, quick):
    """trace_run's matmul scenario, console and exports into @tdir: 0 or
    its failure code. @quick: the same boot (the scenario's cores, rings
    and drain) with bench_quick, whose console trace_export reads and
    checks as trace_run does."""
    if not quick:
        return trace_run.main(["--kernel", kernel, "--scenario", "matmul",
                               "--out", tdir])
    sc = trace_run.SCENARIOS["matmul"]
    sc = sc._replace(args=sc.args + ",bench_quick")
    append = trace_run.boot_args(sc, "sched")
    os.makedirs(tdir, exist_ok=True)
    log = os.path.join(tdir, "console.log")
    res = qemu.run_qemu(kernel, sc.cpus, append, 300, log,
                        extra_args=qemu.ICOUNT_ARGS if sc.icount else [])
    if res.error or res.timed_out or res.panic:
        print(f"trace_bench: {append}: "
              f"{res.error or res.panic or 'timed out'} (log {log})",
              file=sys.stderr)
        return 1
    return trace_export.main([log, "--out", tdir, "--check"])


def entry(name, unit, value, meta, extra=None):
    m = meta.get(name, {})
    e = {"name": name, "unit": unit, "runs": 1, "min": value,
         "median": value, "max": value, "mean": value, "samples": [value],
         "table": [], "paper": None, "bound": m.get("bound")}
    e.update(extra or {})
    return bench_report.with_kind(e, meta)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--kernel-notrace", required=True)
    ap.add_argument("--out", default="build/bench")
    ap.add_argument("--quick", action="store_true",
                    help="the traced matmul boot with bench_quick")
    opts = ap.parse_args(argv)
    path = os.path.join(opts.out, "results.json")
    results = bench_report.load_json(path, [])
    with open(os.path.join(HERE, "bench_meta.json")) as f:
        meta = json.load(f)
    off = {r["name"]: r for r in results}.get(PATH)
    if not off:
        print(f"trace_bench: no {PATH} in {path}: run ubench=ipc first",
              file=sys.stderr)
        return 1
    off = off["median"]
    none = ipc_median(opts.kernel_notrace,
                      os.path.join(opts.out, "trace-notrace"), "ubench=ipc")
    on = ipc_median(opts.kernel, os.path.join(opts.out, "trace-on"),
                    "ubench=ipc,trace=1,trace_drain=0")
    tdir = os.path.join(opts.out, "trace")
    if traced_matmul(opts.kernel, tdir, opts.quick) != 0:
        return 1
    with open(os.path.join(tdir, "console.log"), errors="replace") as f:
        lost = sum(trace_export.parse(f.read()).lost().values())
    new = [entry("trace_record_off", "instructions",
                 round((off - none) / PATH_HOOKS, 1), meta,
                 {"path": PATH, "hooks": PATH_HOOKS, "with_hooks": off,
                  "without_hooks": none}),
           entry("trace_record_on", "instructions", on - off, meta,
                 {"path": PATH, "tracing_switch_on": on, "off": off}),
           entry("trace_lost_matmul", "records", lost, meta)]
    bench_report.write_outputs(opts.out, bench_report.merge_results(
        results, new), [f"{e['name']}: {e['median']} {e['unit']}"
                        for e in new])
    for e in new:
        print(f"trace_bench: {e['name']} {e['median']} {e['unit']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
