#!/usr/bin/env python3
"""Fulcrum test runner (called by `make test`).

Runs host test binaries directly and boots the kernel in QEMU once per
suite, then checks the line protocol both print:

    TEST-PASS <name>
    TEST-FAIL <name> :: <reason>
    TEST-SKIP <name> :: <reason>
    TEST-DONE <passed> <failed>
    PANIC ...

The QEMU suites come from --suite-file (tests/suites.txt, one line per
suite, read by suites.py: each line's kind says how it is checked and
which kernel it boots) or one per option (--suite, --panic-suite, ...).
Each program contributes its tests plus, if something went wrong at the
program level (timeout, panic, missing or wrong TEST-DONE, no tests, bad
exit code), one extra failure named `<suite>/<harness>`. A program that
does not run (cannot be started, exits before printing anything, prints
nothing within --first-output seconds) gets that failure with one line
naming the command and its stderr.

Two other kinds of QEMU suite count as one test each: a panic suite
(`<suite>/panic`: the kernel must panic as expected and power off) and
an expect suite (`<suite>/expect`: the boot must print the expected
lines, no PANIC or DEMO-FAIL line, and power off), and a dialog suite
(`<suite>/dialog`: lines of a script are typed into the console, its
expected texts must follow in order, and the machine must power off).
A disk suite is a protocol suite booted with a raw disk image attached
(tools/qemu.py disk_args), made fresh in the log directory with the
host pattern H in every block; after the run one more test,
`<suite>/disk-image`, checks the image byte for byte: the blocks the
guest tests that passed write (tests/user/tests/t_disk.c, t_cache.c;
DISK_WRITERS) hold their pattern P, every other block still holds H.
A trace suite boots with the kernel's trace rings on (boot arguments
trace= and trace_kib=, docs/tracing.md "System calls and boot
arguments"): its test results, if it runs tests, count as a protocol
suite's (else it must power off without a PANIC or DEMO-FAIL line), and
one more test, `<suite>/trace`, reads the dump from the console with
tools/trace_export.py (which checks the dump itself), writes
LOG_DIR/NAME-trace/trace.txt and checks it: no record lost, a ring for
each core and records in every one, at least one migration, and the
scheduler checks of trace_export.check_sched (the records) and
check_ftrace (the trace.txt text).
The last line printed is always `N passed, M failed[, K skipped]`.
"""

import argparse
import os
import re
import shlex
import sys
from dataclasses import dataclass, field

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tools"))
import qemu  # noqa: E402  (tools/qemu.py: the one QEMU command line)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ext2_image  # noqa: E402  (the ext2 suites' image)
import trace_export  # noqa: E402  (tools/: the trace suites' exporter)
from disk_check import (  # noqa: E402  (re-exported for the host tests)
    DISK_BLOCK, DISK_BLOCKS, DISK_WRITERS, disk_image_problems, disk_pattern,
    disk_prepare, disk_written)
from suite_specs import (  # noqa: E402  (re-exported for the host tests)
    OPTION_KINDS, Suite, add_file_options, attach_disk, build_suites,
    file_rows, file_suites, host_suite, kind_parsers, parse_dialog_spec,
    parse_disk_spec, parse_expect_spec, parse_ext2_dialog_spec,
    parse_ext2_spec, parse_panic_spec, parse_power_loss_spec,
    parse_suite_spec, parse_trace_spec, split_expect_spec)

HARNESS_NAME = "<harness>"
TAIL_LINES = 30
DEMO_FAIL_PREFIX = "DEMO-FAIL"

RE_PASS = re.compile(r"^TEST-PASS\s+(\S.*?)\s*$")
RE_FAIL = re.compile(r"^TEST-FAIL\s+(\S.*?)(?:\s+::\s*(.*?))?\s*$")
RE_SKIP = re.compile(r"^TEST-SKIP\s+(\S.*?)(?:\s+::\s*(.*?))?\s*$")
RE_DONE = re.compile(r"^TEST-DONE\s+(\d+)\s+(\d+)\s*$")


@dataclass
class Protocol:
    """Test results parsed from one program's output, in output order."""

    tests: list = field(default_factory=list)   # (status, name, reason)
    done: tuple = None                          # (passed, failed)

    def count(self, status):
        """Number of tests with the given status (PASS/FAIL/SKIP)."""
        return sum(1 for t in self.tests if t[0] == status)


@dataclass
class Totals:
    """Running totals over all suites."""

    passed: int = 0
    failed: int = 0
    skipped: int = 0


def parse_protocol(lines):
    """Parse protocol lines (others ignored) into a Protocol."""
    proto = Protocol()
    for line in lines:
        line = line.rstrip("\r\n")
        if m := RE_PASS.match(line):
            proto.tests.append(("PASS", m.group(1), None))
        elif m := RE_FAIL.match(line):
            proto.tests.append(("FAIL", m.group(1),
                                m.group(2) or "(no reason)"))
        elif m := RE_SKIP.match(line):
            proto.tests.append(("SKIP", m.group(1),
                                m.group(2) or "(no reason)"))
        elif m := RE_DONE.match(line):
            proto.done = (int(m.group(1)), int(m.group(2)))
    return proto


def cores_said(result):
    """Where a QEMU's cores were when it was killed at its timeout, as a
    suffix of the timeout problem ("" if unknown)."""
    return f" (cores: {result.cores})" if result.cores else ""


def harness_problems(result, proto, timeout):
    """Return the list of program-level problems (empty if none)."""
    if result.error:
        return [result.error]
    problems = []
    if result.timed_out:
        problems.append(f"timeout after {timeout}s" + cores_said(result))
    if result.panic:
        problems.append(result.panic)
    counted = (proto.count("PASS"), proto.count("FAIL"))
    if proto.done is None:
        problems.append("missing TEST-DONE")
    elif proto.done != counted:
        problems.append(f"mismatch: TEST-DONE {proto.done[0]} "
                        f"{proto.done[1]} but saw {counted[0]} PASS "
                        f"{counted[1]} FAIL lines")
    if not proto.tests:
        problems.append("no tests reported")
    rc = result.returncode
    if rc not in (None, 0) and not counted[1] and not result.panic:
        problems.append(f"exit code {rc}" + (
            f": {qemu.one_line(result.stderr)}" if result.stderr else ""))
    return problems


def report_suite(suite, result, proto, timeout, totals):
    """Print per-test lines for one suite and add to the totals."""
    for status, name, reason in proto.tests:
        suffix = f": {reason}" if reason else ""
        print(f"{status} {suite.name}/{name}{suffix}")
    problems = harness_problems(result, proto, timeout)
    if problems:
        print(f"FAIL {suite.name}/{HARNESS_NAME}: {'; '.join(problems)}")
        print_tail(result)
    failures = proto.count("FAIL") + (1 if problems else 0)
    totals.passed += proto.count("PASS")
    totals.failed += failures
    totals.skipped += proto.count("SKIP")
    return failures


def print_tail(result):
    """Print the last lines of a program's log, indented."""
    tail = result.tail(TAIL_LINES)
    print(f"    --- last {len(tail)} lines of {result.log_path} ---")
    for line in tail:
        print(f"    | {line}")
    print("    ---")


def panic_problems(suite, result, timeout):
    """Why a panic suite failed (empty list if it passed): it passes iff
    the kernel printed the expected PANIC line and then powered the
    machine off by itself (QEMU exit code 0)."""
    if result.error:
        return [result.error]
    if result.timed_out:
        return [f"timeout after {timeout}s: the machine did not power off "
                "after panic" + cores_said(result)]
    if not result.panic:
        return ["no PANIC line"]
    if missing := [w for w in suite.expect_panic.split(",")
                   if w not in result.panic]:
        return [f"PANIC line {result.panic!r} lacks {missing}"]
    if result.returncode != 0:
        return [f"QEMU exit code {result.returncode}"]
    return []


def report_single(suite, kind, problems, result, totals):
    """Report a suite that counts as one test, <suite>/<kind>; return
    its failures (0 or 1)."""
    if problems:
        print(f"FAIL {suite.name}/{kind}: {'; '.join(problems)}")
        print_tail(result)
        totals.failed += 1
        return 1
    print(f"PASS {suite.name}/{kind}")
    totals.passed += 1
    return 0


def expect_problems(suite, result, timeout):
    """Why an expect suite failed (empty list if it passed): it passes
    iff the boot printed a line containing each expected text, no PANIC
    and no DEMO-FAIL line, and QEMU exited 0 by itself (the kernel
    powered the machine off)."""
    problems = boot_problems(result, timeout)
    if result.error:
        return problems
    missing = [w for w in suite.expect_lines.split(",")
               if not any(w in line for line in result.lines)]
    if missing:
        problems.append(f"no line contains {missing}")
    return problems


def dialog_problems(suite, result, timeout):
    """Why a dialog suite failed (empty list if it passed): each text of
    its script's `expect` lines must appear in a line after the line
    that matched the one before, with no PANIC, and the machine must
    power off by itself."""
    if result.error:
        return [result.error]
    problems = []
    if result.timed_out:
        problems.append(f"timeout after {timeout}s: the machine did not "
                        "power off" + cores_said(result))
    if result.panic:
        problems.append(result.panic)
    at = 0
    for want in suite.expect_seq:
        found = next((i for i in range(at, len(result.lines))
                      if want in result.lines[i]), None)
        if found is None:
            problems.append(f"no line after line {at} contains {want!r}")
            break
        at = found + 1
    if result.returncode not in (None, 0):
        problems.append(f"QEMU exit code {result.returncode}")
    return problems


def boot_problems(result, timeout):
    """Why a boot that runs no tests failed: no power-off, a PANIC or a
    DEMO-FAIL line, a QEMU error (empty list: none)."""
    if result.error:
        return [result.error]
    problems = []
    if result.timed_out:
        problems.append(f"timeout after {timeout}s: the machine did not "
                        "power off" + cores_said(result))
    if result.panic:
        problems.append(result.panic)
    problems += [f"{line!r}" for line in result.lines
                 if line.startswith(DEMO_FAIL_PREFIX)][:1]
    if result.returncode not in (None, 0):
        problems.append(f"QEMU exit code {result.returncode}")
    return problems


def trace_problems(suite, result):
    """Why a trace suite's trace is not right (empty list: it is)."""
    if result.error or result.timed_out:
        return ["no complete boot to take the trace from"]
    try:
        trace = trace_export.parse("".join(
            ln if ln.endswith("\n") else ln + "\n" for ln in result.lines))
    except trace_export.DumpError as exc:
        return [f"the dump: {exc}"]
    problems = []
    ncpus = trace.header["ncpus"]
    if ncpus != suite.cpus:
        problems.append(f"rings for {ncpus} of {suite.cpus} cores")
    empty = [c for c in range(suite.cpus) if not trace.rings.get(c)]
    if empty:
        problems.append(f"no record from cores {empty}")
    lost = {c: n for c, n in trace.lost().items() if n}
    if lost:
        problems.append(f"records lost in the rings: {lost}")
    problems += [f"records: {p}" for p in trace_export.check_sched(trace)[:5]]
    os.makedirs(suite.trace_dir, exist_ok=True)
    path = os.path.join(suite.trace_dir, "trace.txt")
    trace_export.write_ftrace(trace, path)
    with open(path, encoding="utf-8") as f:
        found, switches, migrations = trace_export.check_ftrace(
            f.read().splitlines())
    problems += [f"trace.txt: {p}" for p in found[:5]]
    if not switches or not migrations:
        problems.append(f"trace.txt: {switches} switches, {migrations} "
                        "migrations: nothing to check")
    else:
        print(f"   {suite.name}: trace.txt: {switches} switches, "
              f"{migrations} migrations on {ncpus} cores checked")
    return problems


# ------------------------------------------------------------ disk suites

# F, B and D talk through shared-memory rings whenever all three run
# (paper 002's ISPC between servers): each says so once at its start.
SERVER_RING_LINES = ("fs: ext2 mounted:", "cache: ")


def server_rings_expected(args):
    """Does a boot with `args` start F over B over D (and F mount)?"""
    keys = {a.split("=")[0] for a in args.split(",")}
    return ({"disk", "cache", "fs"} <= keys and "fsbad" not in keys
            and "srv_rings=0" not in args.split(","))


def server_rings_problems(result):
    """F's and B's start lines must say 'over a ring'."""
    problems = []
    for prefix in SERVER_RING_LINES:
        lines = [l for l in result.lines if l.startswith(prefix)]
        if not lines:
            problems.append(f"no '{prefix}' line")
        elif not any("over a ring" in l for l in lines):
            problems.append(f"'{lines[0].strip()}': not over a ring")
    return problems


def run_one(suite, opts, log_path, totals):
    """Run one suite of any kind and report it; return its failures."""
    def go(stop_on_panic=True):
        return qemu.run(suite.cmd, opts.timeout, log_path, stop_on_panic,
                        first_output=opts.first_output, dialog=suite.dialog)
    if suite.cut_at is not None:
        ext2_image.prepare(suite.disk, bs=ext2_image.block_size(suite.args))
        result = qemu.run(suite.cmd, opts.timeout, log_path,
                          first_output=opts.first_output,
                          kill_on=(ext2_image.RE_SYNCED, suite.cut_at))
        failures = report_single(suite, "power-loss",
                                 power_loss_problems(suite, result,
                                                     opts.timeout),
                                 result, totals)
    elif suite.trace_dir is not None:
        result = go()
        proto = parse_protocol(result.lines)
        if proto.tests or proto.done:
            failures = report_suite(suite, result, proto, opts.timeout,
                                    totals)
        else:
            failures = report_single(suite, "boot",
                                     boot_problems(result, opts.timeout),
                                     result, totals)
        failures += report_single(suite, "trace",
                                  trace_problems(suite, result), result,
                                  totals)
    elif suite.dialog is not None:
        if suite.ext2:
            ext2_image.prepare(suite.disk,
                               bs=ext2_image.block_size(suite.args))
        result = go()
        failures = report_single(
            suite, "dialog", dialog_problems(suite, result, opts.timeout),
            result, totals)
    elif suite.expect_panic is not None:
        result = go(stop_on_panic=False)
        failures = report_single(
            suite, "panic", panic_problems(suite, result, opts.timeout),
            result, totals)
    elif suite.expect_lines is not None:
        result = go()
        failures = report_single(
            suite, "expect", expect_problems(suite, result, opts.timeout),
            result, totals)
    else:
        bad = ext2_image.corruption(suite.args) if suite.ext2 else None
        if suite.ext2:
            ext2_image.prepare(suite.disk, bad,
                               ext2_image.block_size(suite.args))
        elif suite.disk:
            disk_prepare(suite.disk)
        result = go()
        proto = parse_protocol(result.lines)
        failures = report_suite(suite, result, proto, opts.timeout, totals)
        if suite.ext2 and ext2_image.unchecked(suite.args):
            pass  # damaged on purpose, or its writer crashed: unchecked
        elif suite.ext2:
            passed = [w for w in ext2_image.GUEST_WRITERS
                      if ("PASS", w, None) in proto.tests]
            failures += report_single(
                suite, "ext2-image",
                ext2_image.problems(suite.disk, passed), result, totals)
        elif suite.disk:
            failures += report_single(
                suite, "disk-image",
                disk_image_problems(suite.disk, disk_written(proto)),
                result, totals)
        if suite.ext2 and server_rings_expected(suite.args):
            failures += report_single(
                suite, "server-rings", server_rings_problems(result),
                result, totals)
    return result, failures


def power_loss_problems(suite, result, timeout):
    """Why a power-loss suite failed: QEMU not cut at its cut_at-th
    fsync (the writer failed or ended first, or a panic), or the image
    after e2fsck -fy (ext2_image.power_loss_problems)."""
    if result.killed_on is None:
        return boot_problems(result, timeout) + [
            f"no cut: fewer than {suite.cut_at} fsyncs announced"]
    if result.panic:
        return [f"panic: {result.panic}"]
    return ext2_image.power_loss_problems(
        suite.disk, ext2_image.synced_files(result.lines))


def echo_lines(result, prefixes):
    """Print the program's output lines that start with one of
    `prefixes` (--echo: result lines a suite reports, e.g. TORTURE)."""
    for line in result.lines:
        line = line.rstrip("\r\n")
        if any(line.startswith(p) for p in prefixes):
            print(line)


def same_lines_problems(spec, outputs):
    """--same-lines PREFIX:SUITE,SUITE...: the lines starting with PREFIX
    must be the same, and present, in every named suite's output.
    Returns a list of problems (empty: the check passed)."""
    prefix, _, names = spec.rpartition(":")
    names = [n for n in names.split(",") if n]
    if not prefix or len(names) < 2:
        return [f"bad --same-lines {spec!r}: want PREFIX:SUITE,SUITE..."]
    seen = {}
    for name in names:
        if name not in outputs:
            return [f"suite {name} did not run"]
        lines = [l.rstrip("\r\n") for l in outputs[name]
                 if l.startswith(prefix)]
        if not lines:
            return [f"suite {name} printed no {prefix!r} line"]
        seen[name] = lines
    first = names[0]
    return [f"{n}: {seen[n]} differs from {first}: {seen[first]}"
            for n in names[1:] if seen[n] != seen[first]]


def check_same_lines(specs, outputs, totals):
    """Report each --same-lines check as one test."""
    for spec in specs:
        problems = same_lines_problems(spec, outputs)
        name = f"same-lines/{spec.rpartition(':')[0]}"
        if problems:
            print(f"FAIL {name}: {'; '.join(problems)}")
            totals.failed += 1
        else:
            print(f"PASS {name}")
            totals.passed += 1


def run_suite(suite, opts, totals):
    """Run one suite, print its results and wall time; return its
    output lines."""
    what = f"-smp {suite.cpus} \"{suite.args}\"" if suite.cpus else "host"
    print(f"== {suite.name} ({what})", flush=True)
    log_path = os.path.join(opts.log_dir, f"{suite.name}.log")
    result, failures = run_one(suite, opts, log_path, totals)
    echo_lines(result, opts.echo)
    status = "ok" if failures == 0 else f"{failures} failed"
    print(f"-- {suite.name}: {status} in {result.elapsed:.1f}s "
          f"(log {log_path})", flush=True)
    return result.lines


def parse_args(argv):
    """Parse the command line."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", help="kernel ELF to boot in QEMU")
    add_file_options(ap)
    ap.add_argument("--host-bin", action="append", default=[],
                    help="host test program, a binary or an executable "
                    "script, and its arguments if any (one shell-quoted "
                    "string; repeatable)")
    ap.add_argument("--suite", action="append", default=[],
                    help="NAME:CPUS:ARGS QEMU suite (repeatable)")
    ap.add_argument("--kernel-suite", action="append", default=[],
                    metavar="KERNEL=NAME:CPUS:ARGS",
                    help="a protocol suite booted with KERNEL instead of "
                         "--kernel (e.g. build/kernel-irqstat.elf)")
    ap.add_argument("--panic-suite", action="append", default=[],
                    help="NAME:CPUS:ARGS:EXPECT: the kernel must print a "
                    "PANIC line containing each comma-separated part of "
                    "EXPECT, then power off")
    ap.add_argument("--expect-suite", action="append", default=[],
                    help="NAME:CPUS:ARGS:EXPECT: the boot must print a line "
                    "containing each comma-separated part of EXPECT, no "
                    "PANIC or DEMO-FAIL line, then power off")
    ap.add_argument("--dialog-suite", action="append", default=[],
                    help="NAME:CPUS:ARGS:FILE: type the lines of script "
                    "FILE into the console and find its expected texts "
                    "in order, no PANIC line, then power off")
    ap.add_argument("--disk-suite", action="append", default=[],
                    help="NAME:CPUS:ARGS:modern|legacy: a --suite booted "
                    "with a fresh disk image, checked byte for byte after "
                    "the run")
    ap.add_argument("--ext2-suite", action="append", default=[],
                    metavar="NAME:CPUS:ARGS",
                    help="boot with a fresh ext2 image made by mke2fs; "
                         "e2fsck and debugfs check it after the run")
    ap.add_argument("--ext2-dialog-suite", action="append", default=[],
                    metavar="NAME:CPUS:ARGS:FILE",
                    help="a dialog suite booted with a fresh ext2 image")
    ap.add_argument("--powerloss-suite", action="append", default=[],
                    metavar="NAME:CPUS:ARGS:N",
                    help="an ext2 suite whose QEMU is killed at the "
                         "guest's N-th fsync, then e2fsck -fy must repair "
                         "the image and every fsynced file read back")
    ap.add_argument("--trace-suite", action="append", default=[],
                    metavar="NAME:CPUS:ARGS",
                    help="boot with the trace rings on (ARGS: trace=...); "
                         "its tests count, and its trace dump is exported "
                         "and checked")
    ap.add_argument("--same-lines", action="append", default=[],
                    metavar="PREFIX:SUITE,SUITE",
                    help="the output lines starting with PREFIX must be "
                         "equal (and present) in every named suite")
    ap.add_argument("--timeout", type=float, default=120,
                    help="per-program timeout in seconds (default 120)")
    ap.add_argument("--first-output", type=float,
                    default=qemu.FIRST_OUTPUT_S,
                    help="seconds a program may run without printing a "
                    f"line (default {qemu.FIRST_OUTPUT_S:g})")
    ap.add_argument("--echo", action="append", default=[],
                    metavar="PREFIX",
                    help="print the output lines that start with PREFIX "
                    "(repeatable)")
    ap.add_argument("--log-dir", default="build/test-logs",
                    help="directory for per-suite logs")
    opts = ap.parse_args(argv)
    if opts.timeout == int(opts.timeout):
        opts.timeout = int(opts.timeout)
    return opts


def list_suites(suites, same_lines):
    """--list: one line per suite, its name and command (shell words),
    then one per --same-lines check."""
    for suite in suites:
        print(f"{suite.name}: {shlex.join(suite.cmd)}")
    for spec in same_lines:
        print(f"same-lines {spec}")


def main(argv=None):
    """Run every suite in order and print the summary line."""
    opts = parse_args(argv)
    suites = build_suites(opts)
    if opts.list:
        list_suites(suites, opts.same_lines)
        return 0
    if not suites:
        sys.exit("run_tests: nothing to run (no --host-bin or --suite)")
    totals = Totals()
    outputs = {}
    for suite in suites:
        outputs[suite.name] = run_suite(suite, opts, totals)
    check_same_lines(opts.same_lines, outputs, totals)
    summary = f"{totals.passed} passed, {totals.failed} failed"
    if totals.skipped:
        summary += f", {totals.skipped} skipped"
    print(summary)
    return 1 if totals.failed else 0


if __name__ == "__main__":
    sys.exit(main())
