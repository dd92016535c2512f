#!/usr/bin/env python3
"""`make trace SCENARIO=...`: boot a scenario with the trace rings on,
collect the dump from the console, export it.

    trace_run.py --kernel K --scenario NAME [--out DIR] [--classes C]
                 [--kib N] [--drain on|off] [--timeout S]

The kernel records the classes C (boot argument trace=C: sched, all or
a mask of <fulcrum/trace.h>'s FUL_TRC_* bits) into rings of N KiB per
core (trace_kib=N) from boot on, and prints them on the console
(kernel/trace_out.c): at shutdown, and with --drain on also every 50 ms
while the scenario runs (its drain thread on core 0; off: trace_drain=0).
Without --kib and --drain, the scenario's own: rings as large as the
trace window allows for its cores, no drain, which holds every record
of each scenario (measured: SCENARIOS). The boot goes through
tools/qemu.py, the one QEMU command line. The console goes to
DIR/console.log, then tools/trace_export.py writes DIR/trace.txt and
DIR/trace.json and checks the scheduler records (--check). Prints the
lost counts.
"""

import argparse
import os
import sys
from typing import NamedTuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemu  # noqa: E402  (tools/qemu.py: the one QEMU command line)
import trace_export  # noqa: E402


class Scenario(NamedTuple):
    cpus: int
    args: str      # boot arguments (trace= and trace_kib= added)
    icount: bool
    timeout: int   # seconds
    what: str
    kib: int       # ring KiB per core unless --kib
    drain: bool    # the drain thread unless --drain


# <fulcrum/trace.h>: FUL_TRACE_KIB_MIN, FUL_TRACE_KIB_MAX and
# FUL_TRACE_RINGS_MAX_KIB (the kernel refuses the same sizes, and says so
# on the console, but then traces with its default: refused here first).
KIB_MIN, KIB_MAX, RINGS_MAX_KIB = 4, 16384, 16384

# The drain prints at the console's pace, about 5,000 records a second
# under multi-threaded TCG, far below a switch storm's, and its console
# writes slow the other cores down (QEMU's device lock): a run grows
# longer and writes more. So each scenario's rings take the whole window
# and are printed at shutdown only. Records of the busiest core with
# trace=sched (a ring of the window holds 131,071 on 4 cores, 262,143 on
# 2): demo up to 21,273 (its yield storms last as long as the host keeps
# core 0 from ending them), matmul 23,067, ipc 474, latency with 300
# samples per policy up to 88,000; with the 2,000 of make bench about
# 400,000, beyond any ring, and with the drain on more still
# (docs/tracing.md "Export: `make trace`").
SCENARIOS = {
    "demo": Scenario(4, "demo", False, 300,
                     "the balancer demo of `make demo` (decision records "
                     "as LBLOG)", 4096, False),
    "matmul": Scenario(4, "ubench=matmul", False, 900,
                       "paper 000's matrix experiment (ubench=matmul)",
                       4096, False),
    "latency": Scenario(2, "ubench=wake,wake_mttcg,wake_samples=300",
                        False, 1200, "the wake-up latency benchmark "
                        "(ubench=wake, MTTCG, 300 samples per policy)",
                        8192, False),
    "ipc": Scenario(4, "ubench=ipc", True, 300,
                    "the IPC benchmarks under -icount (ubench=ipc)",
                    4096, False),
}


def kib_problem(kib, cpus):
    """Why rings of @kib KiB on each of @cpus cores cannot be (None: they
    can, as far as the window goes; the kernel also wants them within a
    quarter of its free memory)."""
    if kib < KIB_MIN or kib > KIB_MAX or kib & (kib - 1):
        return (f"TRACE_KIB={kib} is not a power of two in "
                f"{KIB_MIN}..{KIB_MAX}")
    if kib * cpus > RINGS_MAX_KIB:
        return (f"TRACE_KIB={kib}: {cpus} rings of {kib} KiB exceed the "
                f"trace window of {RINGS_MAX_KIB} KiB")
    return None


def scenario_help():
    return "\n".join(f"  {n:8} {s.what}; {s.kib} KiB rings, drain "
                     f"{'on' if s.drain else 'off'}"
                     for n, s in SCENARIOS.items())


def boot_args(sc, classes, kib=None, drain=None):
    """The boot arguments of scenario @sc tracing @classes, with the
    scenario's ring size and drain unless @kib / @drain say."""
    kib = sc.kib if kib is None else kib
    drain = sc.drain if drain is None else drain
    return (f"{sc.args},trace={classes},trace_kib={kib}"
            + ("" if drain else ",trace_drain=0"))


def lost_hint(scenario, lost, kib, cpus, drain):
    """What to try when records were lost (None: none were)."""
    n = sum(lost.values())
    if not n:
        return None
    share = 1 << ((RINGS_MAX_KIB // cpus).bit_length() - 1)
    more = (f"TRACE_KIB={share} (the largest rings of {cpus} cores the "
            f"window holds)" if kib < share
            else "fewer TRACE_CLASSES or a shorter run (the rings fill the "
                 "window)")
    return (f"trace_run: {scenario}: {n} records lost with {kib} KiB rings, "
            f"drain {'on' if drain else 'off'}: try {more}")


def parse_args(argv):
    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="scenarios:\n" + scenario_help())
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--out", default="build/trace")
    ap.add_argument("--classes", default="sched")
    ap.add_argument("--kib", type=int, default=None,
                    help="ring KiB per core (default: the scenario's)")
    ap.add_argument("--drain", choices=("on", "off"), default=None,
                    help="print while the scenario runs (default: the "
                         "scenario's)")
    ap.add_argument("--timeout", type=int, default=0)
    return ap.parse_args(argv)


def main(argv=None):
    opts = parse_args(argv)
    if opts.scenario not in SCENARIOS:
        print(f"trace_run: no scenario {opts.scenario!r}; the scenarios "
              f"are:\n{scenario_help()}", file=sys.stderr)
        return 2
    sc = SCENARIOS[opts.scenario]
    kib = sc.kib if opts.kib is None else opts.kib
    drain = sc.drain if opts.drain is None else opts.drain == "on"
    bad = kib_problem(kib, sc.cpus)
    if bad:
        print(f"trace_run: {opts.scenario}: {bad}", file=sys.stderr)
        return 2
    os.makedirs(opts.out, exist_ok=True)
    log = os.path.join(opts.out, "console.log")
    append = boot_args(sc, opts.classes, kib, drain)
    extra = qemu.ICOUNT_ARGS if sc.icount else []
    res = qemu.run_qemu(opts.kernel, sc.cpus, append,
                        opts.timeout or sc.timeout, log, extra_args=extra)
    if res.error or res.timed_out or res.panic:
        why = res.error or res.panic or f"timed out after {res.elapsed:.0f}s"
        print(f"trace_run: {opts.scenario}: {why} (log {log})",
              file=sys.stderr)
        return 1
    print(f"trace_run: {opts.scenario} booted in {res.elapsed:.1f}s "
          f"(-smp {sc.cpus} \"{append}\"), console in {log}")
    code = trace_export.main([log, "--out", opts.out, "--check"])
    if code == 0:
        with open(log, encoding="utf-8", errors="replace") as f:
            hint = lost_hint(opts.scenario,
                             trace_export.parse(f.read()).lost(), kib,
                             sc.cpus, drain)
        if hint:
            print(hint)
    return code


if __name__ == "__main__":
    sys.exit(main())
