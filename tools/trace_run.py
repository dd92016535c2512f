#!/usr/bin/env python3
"""`make trace SCENARIO=...`: boot a scenario with the trace rings on,
collect the dump from the console, export it.

    trace_run.py --kernel K --scenario NAME [--out DIR] [--classes C]
                 [--kib N] [--timeout S]

The kernel records the classes C (boot argument trace=C: sched, all or
a mask of <fulcrum/trace.h>'s FUL_TRC_* bits) into rings of N KiB per
core (trace_kib=N) from boot on, and dumps them on the console at
shutdown (kernel/trace.c). The boot goes through tools/qemu.py, the one
QEMU command line. The console goes to DIR/console.log, then
tools/trace_export.py writes DIR/trace.txt and DIR/trace.json and
checks the scheduler records (--check). Prints the lost counts.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemu  # noqa: E402  (tools/qemu.py: the one QEMU command line)
import trace_export  # noqa: E402

# name -> (cores, boot arguments, icount, timeout in seconds, what)
SCENARIOS = {
    "demo": (4, "demo", False, 300,
             "the balancer demo of `make demo` (decision records as LBLOG)"),
    "matmul": (4, "ubench=matmul", False, 900,
               "paper 000's matrix experiment (ubench=matmul)"),
    "latency": (2, "ubench=wake,wake_mttcg,wake_samples=2000", False, 1200,
                "the wake-up latency benchmark (ubench=wake, MTTCG)"),
    "ipc": (4, "ubench=ipc", True, 300,
            "the IPC benchmarks under -icount (ubench=ipc)"),
}


# <fulcrum/trace.h>: FUL_TRACE_KIB_MIN, FUL_TRACE_KIB_MAX and
# FUL_TRACE_RINGS_MAX_KIB (the kernel refuses the same sizes, and says so
# on the console, but then traces with its default: refused here first).
KIB_MIN, KIB_MAX, RINGS_MAX_KIB = 4, 16384, 16384


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
    return "\n".join(f"  {n:8} {s[4]}" for n, s in SCENARIOS.items())


def main(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="scenarios:\n" + scenario_help())
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--out", default="build/trace")
    ap.add_argument("--classes", default="sched")
    ap.add_argument("--kib", type=int, default=64)
    ap.add_argument("--timeout", type=int, default=0)
    opts = ap.parse_args(argv)
    if opts.scenario not in SCENARIOS:
        print(f"trace_run: no scenario {opts.scenario!r}; the scenarios "
              f"are:\n{scenario_help()}", file=sys.stderr)
        return 2
    cpus, args, icount, timeout, _ = SCENARIOS[opts.scenario]
    bad = kib_problem(opts.kib, cpus)
    if bad:
        print(f"trace_run: {opts.scenario}: {bad}", file=sys.stderr)
        return 2
    os.makedirs(opts.out, exist_ok=True)
    log = os.path.join(opts.out, "console.log")
    append = f"{args},trace={opts.classes},trace_kib={opts.kib}"
    extra = qemu.ICOUNT_ARGS if icount else []
    res = qemu.run_qemu(opts.kernel, cpus, append,
                        opts.timeout or timeout, log, extra_args=extra)
    if res.error or res.timed_out or res.panic:
        why = res.error or res.panic or f"timed out after {res.elapsed:.0f}s"
        print(f"trace_run: {opts.scenario}: {why} (log {log})",
              file=sys.stderr)
        return 1
    print(f"trace_run: {opts.scenario} booted in {res.elapsed:.1f}s "
          f"(-smp {cpus} \"{append}\"), console in {log}")
    return trace_export.main([log, "--out", opts.out, "--check"])


if __name__ == "__main__":
    sys.exit(main())
