#!/usr/bin/env python3
"""The wake_path plugin's side in Python: its arguments from the kernel
ELF, and its output turned into benchmark results.

The plugin (wake_path.c, built into build/plugin/wake_path.so) counts,
per vCPU, the instructions from the timer interrupt that wakes the wake
benchmark's measured thread to that thread's first instruction after
its wait (docs/benchmarks.md, "wake_path_<policy>"). It finds the
kernel's places by address:

    entry   the IRQ slots of the exception vector table `vectors`
            (vectors.S): current EL with SP_ELx (+0x280) and lower EL,
            AArch64 (+0x480)
    poll    the idle loop's and idle-in-place's interrupt polls
            (arch_irq_poll, arch_irq_poll_one), which handle an
            interrupt without an exception
    tick    sched_tick, the timer interrupt's handler
    wake    the call that makes a sleeper whose deadline has passed
            ready: in sched_wake_sleepers, the `bl` to
            sched_wake_blocked, or to sched_make_ready where the
            compiler inlined sched_wake_blocked there (found in the
            disassembly; an error if there is no such call)
    switch  arch_context_switch and arch_fastpath_switch (switch.S):
            the last switch before the mark is the one back to the
            measured thread
    kbase   _kernel_start: below it, EL0's instructions

    wake_path.py --kernel build/kernel.elf     print the -plugin arguments

The guest (user/bench/ub_wake.c) prints `WAKE-PATH-SEG <seg> <name>`
for each policy's run; the plugin prints `WAKE-PATH <seg> <key> <value>`
and `WAKE-PATH-PCT <seg> <p0..p100>` at QEMU's exit (on stderr).
results() joins the two into {name: ("insn", percentiles)} and the
fields of each (mean, p99, ...), as BENCH and BENCH-STAT lines would.
"""

import argparse
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__

CROSS = os.environ.get("CROSS", "aarch64-linux-gnu-")
NM, OBJDUMP = CROSS + "nm", CROSS + "objdump"
WAKER = "sched_wake_sleepers"
WAKE_CALLEES = ("sched_wake_blocked", "sched_make_ready")
RE_BL = re.compile(r"^\s*([0-9a-f]+):\s+[0-9a-f]{8}\s+bl\s+[0-9a-f]+ <(\w+)>")
IRQ_SLOTS = (0x280, 0x480)  # IRQ from EL1 (SP_EL1), IRQ from EL0 (AArch64)
SWITCHES = ("arch_context_switch", "arch_fastpath_switch")
SYMBOLS = ("vectors", "arch_irq_poll", "arch_irq_poll_one", "sched_tick",
           "_kernel_start") + SWITCHES

RE_SEG = re.compile(r"^WAKE-PATH-SEG\s+(\d+)\s+(\S+)\s*$")
RE_STAT = re.compile(r"^WAKE-PATH\s+(\d+)\s+([a-z0-9_]+)\s+(\d+)\s*$")
RE_PCT = re.compile(r"^WAKE-PATH-PCT\s+(\d+)((?:\s+\d+){101})\s*$")
RE_TOTAL = re.compile(r"^WAKE-PATH-TOTAL\b")


class PluginError(Exception):
    """The plugin's output cannot give the results the guest asks for."""


def symbols(kernel):
    """{name: address} of SYMBOLS in the kernel ELF (nm)."""
    out = subprocess.run([NM, kernel], capture_output=True, text=True,
                         check=True).stdout
    found = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] in SYMBOLS:
            found[parts[2]] = int(parts[0], 16)
    missing = [s for s in SYMBOLS if s not in found]
    if missing:
        raise PluginError(f"{kernel}: no symbol {', '.join(missing)}")
    return found


def wake_call(kernel):
    """The address of the call in WAKER that makes a sleeper ready."""
    out = subprocess.run([OBJDUMP, "-d", f"--disassemble={WAKER}", kernel],
                         capture_output=True, text=True, check=True).stdout
    calls = [(m.group(2), int(m.group(1), 16)) for line in out.splitlines()
             if (m := RE_BL.match(line)) and m.group(2) in WAKE_CALLEES]
    if len(calls) != 1:
        raise PluginError(f"{kernel}: {WAKER} should make a sleeper ready "
                          f"with one call to {' or '.join(WAKE_CALLEES)}, "
                          f"found {calls or 'none'}")
    return calls[0][1]


def plugin_argv(kernel):
    """The plugin's key=value arguments for this kernel."""
    sym = symbols(kernel)
    argv = [f"entry={sym['vectors'] + off:#x}" for off in IRQ_SLOTS]
    argv += [f"poll={sym[s]:#x}" for s in ("arch_irq_poll",
                                            "arch_irq_poll_one")]
    argv += [f"tick={sym['sched_tick']:#x}",
             f"wake={wake_call(kernel):#x}",
             f"kbase={sym['_kernel_start']:#x}"]
    argv += [f"switch={sym[s]:#x}" for s in SWITCHES]
    return argv


def is_plugin_line(line):
    """Is this one of the plugin's output lines?"""
    return bool(RE_STAT.match(line) or RE_PCT.match(line) or
                RE_TOTAL.match(line))


def parse(lines):
    """{seg: {key: value, ..., "pct": [101 values]}} from the plugin's
    lines, and the WAKE-PATH-TOTAL line (or None)."""
    segs, total = {}, None
    for line in lines:
        line = line.rstrip("\r\n")
        if m := RE_STAT.match(line):
            segs.setdefault(int(m.group(1)), {})[m.group(2)] = \
                int(m.group(3))
        elif m := RE_PCT.match(line):
            segs.setdefault(int(m.group(1)), {})["pct"] = \
                [int(v) for v in m.group(2).split()]
        elif RE_TOTAL.match(line):
            total = line
    return segs, total


def results(guest_lines, plugin_lines):
    """({name: ("insn", percentiles)}, {name: {field: value}}) for each
    WAKE-PATH-SEG line of the guest; PluginError if the plugin's output
    has no samples for one of them (not loaded, or counted nothing)."""
    names = {}
    for line in guest_lines:
        if m := RE_SEG.match(line.rstrip("\r\n")):
            names[int(m.group(1))] = m.group(2)
    segs, total = parse(plugin_lines)
    if names and total is None:
        raise PluginError("no WAKE-PATH-TOTAL line: the plugin was not "
                          "loaded, or QEMU did not exit normally")
    benches, stats = {}, {}
    for seg, name in sorted(names.items()):
        got = segs.get(seg, {})
        if not got.get("samples") or "pct" not in got:
            raise PluginError(f"{name}: the plugin has no samples for "
                              f"segment {seg} ({total})")
        benches[name] = ("insn", got["pct"])
        # "samples" is a result's list of values: the count is
        # samples_taken, as the guest's BENCH-STAT lines name it
        stats[name] = {("samples_taken" if k == "samples" else k): v
                       for k, v in got.items() if k != "pct"}
    return benches, stats


def main(argv=None):
    """Print the plugin arguments for a kernel, comma-separated."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", required=True)
    opts = ap.parse_args(argv)
    print(",".join(plugin_argv(opts.kernel)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
