#!/usr/bin/env python3
"""The wake_path plugin's side in Python: its arguments from the kernel
ELF, and its output turned into benchmark results.

The plugin (wake_path.c, built into build/plugin/wake_path.so) counts,
per vCPU, the instructions from the timer interrupt that wakes the wake
benchmark's measured thread to that thread's first instruction after
its wait (docs/bench-wake.md, "The core's own instructions"). It finds the
kernel's places by address:

    entry   the IRQ slots of the exception vector table `vectors`
            (vectors.S): current EL with SP_ELx (+0x280) and lower EL,
            AArch64 (+0x480)
    poll    the idle loop's and idle-in-place's interrupt polls
            (arch_irq_poll, arch_irq_poll_one), which handle an
            interrupt without an exception
    tick    sched_timeout, the timeout timer's handler (a sleeper's
            deadline; the tick timer's sched_tick wakes nobody)
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
    wake_path.py --kernel K --longest LOG      name each segment's longest
                                               window (plugin run with dump=1)

The guest (user/bench/ub_wake.c) prints `WAKE-PATH-SEG <seg> <name>`
for each policy's run; the plugin prints `WAKE-PATH <seg> <key> <value>`
and `WAKE-PATH-PCT <seg> <p0..p100>` at QEMU's exit (on stderr).
results() joins the two into {name: ("insn", percentiles)} and the
fields of each (mean, p99, ...), as BENCH and BENCH-STAT lines would.
"""

import argparse
import bisect
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__

CROSS = os.environ.get("CROSS", "aarch64-linux-gnu-")
NM, OBJDUMP = CROSS + "nm", CROSS + "objdump"
# where the call is: sched_wake_sleepers, or its one caller when the
# compiler inlined it there
WAKERS = ("sched_wake_sleepers", "sched_timeout")
WAKE_CALLEES = ("sched_wake_blocked", "sched_make_ready")
RE_BL = re.compile(r"^\s*([0-9a-f]+):\s+[0-9a-f]{8}\s+bl\s+[0-9a-f]+ <(\w+)>")
IRQ_SLOTS = (0x280, 0x480)  # IRQ from EL1 (SP_EL1), IRQ from EL0 (AArch64)
SWITCHES = ("arch_context_switch", "arch_fastpath_switch")
SYMBOLS = ("vectors", "arch_irq_poll", "arch_irq_poll_one", "sched_timeout",
           "_kernel_start") + SWITCHES

RE_SEG = re.compile(r"^WAKE-PATH-SEG\s+(\d+)\s+(\S+)\s*$")
RE_STAT = re.compile(r"^WAKE-PATH\s+(\d+)\s+([a-z0-9_]+)\s+(\d+)\s*$")
RE_PCT = re.compile(r"^WAKE-PATH-PCT\s+(\d+)((?:\s+\d+){101})\s*$")
RE_TOTAL = re.compile(r"^WAKE-PATH-TOTAL\b")
RE_LONG = re.compile(r"^WAKE-PATH-LONG\s+(\d+)\s+sample\s+(\d+)\s+insns\s+"
                     r"(\d+)\s+all_vcpus\s+(\d+)\s*$")
RE_LONG_AT = re.compile(r"^WAKE-PATH-LONG\s+(\d+)\s+at((?:\s+[0-9a-f]+)+)\s*$")
ADDR_BITS = 40  # a dumped word: the address's low 40 bits, a gap above


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
    """The address of the call in WAKERS that makes a sleeper ready."""
    for waker in WAKERS:
        out = subprocess.run([OBJDUMP, "-d", f"--disassemble={waker}",
                              kernel], capture_output=True, text=True,
                             check=True).stdout
        calls = [(m.group(2), int(m.group(1), 16))
                 for line in out.splitlines()
                 if (m := RE_BL.match(line)) and m.group(2) in WAKE_CALLEES]
        if calls:
            break
    if len(calls) != 1:
        raise PluginError(f"{kernel}: {' or '.join(WAKERS)} should make a "
                          f"sleeper ready with one call to "
                          f"{' or '.join(WAKE_CALLEES)}, found "
                          f"{calls or 'none'}")
    return calls[0][1]


def plugin_argv(kernel):
    """The plugin's key=value arguments for this kernel."""
    sym = symbols(kernel)
    argv = [f"entry={sym['vectors'] + off:#x}" for off in IRQ_SLOTS]
    argv += [f"poll={sym[s]:#x}" for s in ("arch_irq_poll",
                                            "arch_irq_poll_one")]
    argv += [f"tick={sym['sched_timeout']:#x}",
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


def longest(lines):
    """{seg: {"sample", "insns", "all_vcpus", "at": [(address, gap)]}}
    from the plugin's dump=1 lines: each segment's longest window, the
    address of each instruction the vCPU ran in it and the other vCPUs'
    instructions just before it (the vCPU's turn had ended there)."""
    segs = {}
    for line in lines:
        line = line.rstrip("\r\n")
        if m := RE_LONG.match(line):
            segs[int(m.group(1))] = {"sample": int(m.group(2)),
                                     "insns": int(m.group(3)),
                                     "all_vcpus": int(m.group(4)),
                                     "at": []}
        elif (m := RE_LONG_AT.match(line)) and int(m.group(1)) in segs:
            for w in m.group(2).split():
                v = int(w, 16)
                addr = v & ((1 << ADDR_BITS) - 1)
                segs[int(m.group(1))]["at"].append((addr, v >> 44))
    return segs


def symbolize(kernel, at):
    """[(first index, instructions, symbol, longest gap)] of runs of
    one function in @at ([(address low bits, gap)])."""
    out = subprocess.run([NM, "-n", kernel], capture_output=True,
                         text=True, check=True).stdout
    syms = sorted((int(a, 16) & ((1 << ADDR_BITS) - 1), n)
                  for a, t, n in (ln.split() for ln in out.splitlines()
                                  if len(ln.split()) == 3)
                  if t in "tTwW")
    starts = [a for a, _ in syms]
    runs = []
    for i, (addr, gap) in enumerate(at):
        k = bisect.bisect_right(starts, addr) - 1
        name = syms[k][1] if k >= 0 else "?"
        if runs and runs[-1][2] == name and not gap:
            runs[-1][1] += 1
        else:
            runs.append([i, 1, name, gap])
    return [tuple(r) for r in runs]


def print_longest(kernel, log):
    """Each segment's longest window, one line per run of a function;
    a turn the vCPU lost before it is shown as its gap."""
    with open(log, encoding="utf-8", errors="replace") as f:
        segs = longest(f)
    if not segs:
        raise PluginError(f"{log}: no WAKE-PATH-LONG lines (dump=1?)")
    for seg, got in sorted(segs.items()):
        print(f"segment {seg}: sample {got['sample']}, every vCPU "
              f"{got['all_vcpus']} instructions in it")
        for first, n, name, gap in symbolize(kernel, got["at"]):
            lost = f"  (after {gap} of the others')" if gap else ""
            print(f"  {first:6d} {n:5d} {name}{lost}")
    return 0


def main(argv=None):
    """Print the plugin arguments for a kernel, comma-separated, or
    name the longest windows of a dump=1 log."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--longest", metavar="LOG",
                    help="the plugin's dump=1 output (QEMU's stderr)")
    opts = ap.parse_args(argv)
    if opts.longest:
        return print_longest(opts.kernel, opts.longest)
    print(",".join(plugin_argv(opts.kernel)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
