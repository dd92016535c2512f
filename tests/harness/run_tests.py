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
import suites as suites_file  # noqa: E402  (the suite file's reader)

HARNESS_NAME = "<harness>"
TAIL_LINES = 30
DEMO_FAIL_PREFIX = "DEMO-FAIL"

RE_PASS = re.compile(r"^TEST-PASS\s+(\S.*?)\s*$")
RE_FAIL = re.compile(r"^TEST-FAIL\s+(\S.*?)(?:\s+::\s*(.*?))?\s*$")
RE_SKIP = re.compile(r"^TEST-SKIP\s+(\S.*?)(?:\s+::\s*(.*?))?\s*$")
RE_DONE = re.compile(r"^TEST-DONE\s+(\d+)\s+(\d+)\s*$")


@dataclass
class Suite:
    """One program to run: a host binary or a QEMU boot."""

    name: str
    cmd: list
    cpus: int = 0            # 0 for host binaries
    args: str = ""
    expect_panic: str = None  # panic suites: comma-separated texts the
                              # PANIC line must all contain
    expect_lines: str = None  # expect suites: comma-separated texts that
                              # must each appear in some output line
    dialog: list = None       # dialog suites: ready text, lines to type
    expect_seq: list = None   # dialog suites: texts to find, in order
    disk: str = None          # disk suites: the image attached
    ext2: bool = False        # ext2 suites: the image is ext2 (ext2_image)
    trace_dir: str = None     # trace suites: where trace.txt goes
    cut_at: int = None        # power-loss suites: SIGKILL at this fsync


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

DISK_BLOCK = 4096
DISK_BLOCKS = 1024            # a 4 MiB image
# Blocks the guest writes with pattern P, per test that does, if it
# passed: tests/user/tests/t_disk.c disk_io; tests/user/tests/t_cache.c
# cache_writeback with the cache suites' cache=64 (tests/suites.txt).
CACHE_SUITE_LINES = 64
DISK_WRITERS = {
    "disk_io": set(range(100, 116)) | set(range(200, 212)),
    "cache_writeback": (set(range(400, 416)) |
                        set(range(800, 800 + CACHE_SUITE_LINES + 1))),
}
_DISK_BASE_H = bytes((31 * i) & 0xFF for i in range(DISK_BLOCK))
_DISK_BASE_P = bytes((7 * i) & 0xFF for i in range(DISK_BLOCK))


def disk_pattern(block, written):
    """Block `block` as the host fills it (H: byte i is 31 i + 17 b +
    0x5a) or as the guest writes it (P: 7 i + 29 b + 0xa5), mod 256."""
    base, add = ((_DISK_BASE_P, 29 * block + 0xA5) if written
                 else (_DISK_BASE_H, 17 * block + 0x5A))
    shift = bytes((x + add) & 0xFF for x in range(256))
    return base.translate(shift)


def disk_prepare(path):
    """Write a fresh image: every block holds H."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "wb") as f:
        for b in range(DISK_BLOCKS):
            f.write(disk_pattern(b, False))


def disk_written(proto):
    """The blocks the tests that passed in `proto` wrote (P)."""
    passed = {name for status, name, _ in proto.tests if status == "PASS"}
    out = set()
    for name, blocks in DISK_WRITERS.items():
        if name in passed:
            out |= blocks
    return out


def disk_image_problems(path, written):
    """What is wrong with the image after the run: [] if the blocks in
    `written` hold P and every other block H; a run in which no writing
    test passed has nothing to check, which is a problem too."""
    if not written:
        return ["no test that writes the disk passed"]
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        return [f"cannot read {path}: {exc}"]
    if len(data) != DISK_BLOCKS * DISK_BLOCK:
        return [f"{path}: {len(data)} bytes, want {DISK_BLOCKS * DISK_BLOCK}"]
    bad = [b for b in range(DISK_BLOCKS)
           if data[b * DISK_BLOCK:(b + 1) * DISK_BLOCK]
           != disk_pattern(b, b in written)]
    if not bad:
        return []
    return [f"{len(bad)} blocks differ from the expected pattern, "
            f"first {bad[:8]} ({len(written)} should hold P)"]


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


def parse_suite_spec(spec, kernel):
    """Turn NAME:CPUS:ARGS into a QEMU Suite (ARGS may contain ':').
    CPUS is a core count, or a count and a GIC version: 4g3 is 4 cores
    on GICv3 (the default is qemu.gic_version's: v2 up to 8 cores)."""
    parts = spec.split(":", 2)
    m = re.fullmatch(r"(\d+)(?:g([23]))?", parts[1]) if len(parts) >= 2 \
        else None
    if len(parts) < 2 or not parts[0] or not m:
        raise argparse.ArgumentTypeError(f"bad --suite {spec!r}, "
                                         "want NAME:CPUS[gV]:ARGS")
    name, cpus = parts[0], int(m.group(1))
    gic = int(m.group(2)) if m.group(2) else None
    args = parts[2] if len(parts) == 3 else ""
    try:
        cmd = qemu.build_command(kernel, cpus, args, qemu.MTTCG_ARGS,
                                 gic=gic)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"--suite {spec!r}: {exc}")
    return Suite(name=name, cmd=cmd, cpus=cpus, args=args)


def split_expect_spec(spec, kernel, option):
    """NAME:CPUS:ARGS:EXPECT -> (Suite, EXPECT). EXPECT is a
    comma-separated list of non-empty texts without ':'."""
    head, sep, expect = spec.rpartition(":")
    if not sep or not all(expect.split(",")):
        raise argparse.ArgumentTypeError(f"bad {option} {spec!r}, "
                                         "want NAME:CPUS:ARGS:EXPECT")
    return parse_suite_spec(head, kernel), expect


def parse_panic_spec(spec, kernel):
    """A Suite whose kernel must print a PANIC line containing each text
    of EXPECT."""
    suite, suite.expect_panic = split_expect_spec(spec, kernel,
                                                  "--panic-suite")
    return suite


def parse_expect_spec(spec, kernel):
    """A Suite whose boot must print, for each text of EXPECT, a line
    containing it."""
    suite, suite.expect_lines = split_expect_spec(spec, kernel,
                                                  "--expect-suite")
    return suite


def parse_dialog_spec(spec, kernel):
    """NAME:CPUS:ARGS:FILE -> a Suite that types the script FILE into the
    console. FILE lines: `ready TEXT` (first: wait for a line containing
    TEXT), `type LINE` (type LINE and Enter, after the echo of the line
    before), `expect TEXT` (a later line must contain TEXT, in order);
    blank lines and `#` comments are skipped."""
    head, sep, path = spec.rpartition(":")
    if not sep:
        raise argparse.ArgumentTypeError(f"bad --dialog-suite {spec!r}, "
                                         "want NAME:CPUS:ARGS:FILE")
    suite = parse_suite_spec(head, kernel)
    ready, typed, expect = None, [], []
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"--dialog-suite: {exc}")
    for n, line in enumerate(lines, 1):
        word, _, rest = line.strip().partition(" ")
        if not word or word.startswith("#"):
            continue
        if word == "ready" and ready is None and rest:
            ready = rest
        elif word == "type" and rest:
            typed.append(rest)
        elif word == "expect" and rest:
            expect.append(rest)
        else:
            raise argparse.ArgumentTypeError(f"{path}:{n}: bad line "
                                             f"{line!r}")
    if ready is None or not typed:
        raise argparse.ArgumentTypeError(f"{path}: needs a ready line "
                                         "and a type line")
    suite.dialog, suite.expect_seq = [ready] + typed, expect
    return suite


def attach_disk(suite, kernel, log_dir, legacy=False, ext2=False):
    """Boot @suite with the image LOG_DIR/NAME.img (an ext2 one made by
    ext2_image if @ext2, else the pattern of disk_prepare), on the
    legacy virtio-mmio transport if @legacy."""
    suite.disk = os.path.join(log_dir, f"{suite.name}.img")
    suite.ext2 = ext2
    suite.cmd = qemu.build_command(kernel, suite.cpus, suite.args,
                                   qemu.MTTCG_ARGS, disk=suite.disk,
                                   disk_legacy=legacy)
    return suite


def parse_disk_spec(spec, kernel, log_dir):
    """NAME:CPUS:ARGS:MODE -> a protocol Suite booted with a fresh disk
    image LOG_DIR/NAME.img on the modern (MODE modern) or legacy (MODE
    legacy) virtio-mmio transport."""
    head, sep, mode = spec.rpartition(":")
    if not sep or mode not in ("modern", "legacy"):
        raise argparse.ArgumentTypeError(f"bad --disk-suite {spec!r}, "
                                         "want NAME:CPUS:ARGS:modern|legacy")
    return attach_disk(parse_suite_spec(head, kernel), kernel, log_dir,
                       legacy=mode == "legacy")


def parse_ext2_spec(spec, kernel, log_dir):
    """NAME:CPUS:ARGS -> a protocol Suite booted with a fresh ext2 image
    LOG_DIR/NAME.img (tests/harness/ext2_image.py) on the modern
    transport, checked by e2fsck and debugfs after the run."""
    return attach_disk(parse_suite_spec(spec, kernel), kernel, log_dir,
                       ext2=True)


def parse_ext2_dialog_spec(spec, kernel, log_dir):
    """NAME:CPUS:ARGS:FILE -> a dialog suite (parse_dialog_spec) booted
    with a fresh ext2 image (ext2_image.prepare), for the shell's file
    commands; the image is not checked afterwards (nothing writes it)."""
    return attach_disk(parse_dialog_spec(spec, kernel), kernel, log_dir,
                       ext2=True)


def parse_power_loss_spec(spec, kernel, log_dir):
    """NAME:CPUS:ARGS:N -> an ext2 suite cut (SIGKILL) at the guest's
    N-th fsync (tests/user/tests/t_powerloss.c), then repaired and checked."""
    head, sep, n = spec.rpartition(":")
    if not sep or not n.isdigit() or int(n) < 1:
        raise argparse.ArgumentTypeError(f"bad --powerloss-suite {spec!r}"
                                         ", want NAME:CPUS:ARGS:N")
    suite = parse_ext2_spec(head, kernel, log_dir)
    suite.cut_at = int(n)
    return suite


def parse_trace_spec(spec, kernel, log_dir):
    """NAME:CPUS:ARGS -> a Suite whose boot's trace dump is checked
    (ARGS must turn the rings on: trace=...)."""
    suite = parse_suite_spec(spec, kernel)
    if not re.search(r"(^|,)trace=", suite.args):
        raise argparse.ArgumentTypeError(f"--trace-suite {spec!r}: ARGS "
                                         "need trace=CLASSES")
    suite.trace_dir = os.path.join(log_dir, f"{suite.name}-trace")
    return suite


def host_suite(spec):
    """A host test program (a binary or an executable script) with the
    arguments that follow it in @spec (shell words), named after its
    file without the extension."""
    path, *args = shlex.split(spec)
    name = os.path.splitext(os.path.basename(path))[0]
    return Suite(name=name, cmd=[os.path.abspath(path)] + args)


# Each command-line option of a suite kind, and that kind (suites.KINDS)
OPTION_KINDS = [("suite", "protocol"), ("panic_suite", "panic"),
                ("expect_suite", "expect"), ("dialog_suite", "dialog"),
                ("disk_suite", "disk"), ("ext2_suite", "ext2"),
                ("ext2_dialog_suite", "ext2-dialog"),
                ("trace_suite", "trace"), ("powerloss_suite", "powerloss")]


def kind_parsers(log_dir):
    """For each kind of suites.KINDS, its parser: (SPEC, KERNEL) -> Suite
    (argparse.ArgumentTypeError if SPEC is bad)."""
    return {
        "protocol": parse_suite_spec, "kernel": parse_suite_spec,
        "irqstat": parse_suite_spec, "panic": parse_panic_spec,
        "expect": parse_expect_spec, "dialog": parse_dialog_spec,
        "disk": lambda spec, k: parse_disk_spec(spec, k, log_dir),
        "ext2": lambda spec, k: parse_ext2_spec(spec, k, log_dir),
        "ext2-dialog": lambda spec, k: parse_ext2_dialog_spec(spec, k,
                                                              log_dir),
        "trace": lambda spec, k: parse_trace_spec(spec, k, log_dir),
        "powerloss": lambda spec, k: parse_power_loss_spec(spec, k,
                                                           log_dir),
    }


def file_rows(opts):
    """The rows of --suite-file that --section and --only select, and
    the --var values (run_tests exits on a bad file or option)."""
    if not opts.suite_file:
        if opts.section or opts.only:
            sys.exit("run_tests: --section and --only need --suite-file")
        return [], {}
    only = [n for o in opts.only for n in o.split(",") if n]
    variables = {}
    for v in opts.var:
        key, sep, value = v.partition("=")
        if not sep or not key:
            sys.exit(f"run_tests: --var {v!r}: want NAME=VALUE")
        variables[key] = value
    try:
        rows = suites_file.read(opts.suite_file)
    except (OSError, suites_file.SuiteFileError) as exc:
        sys.exit(f"run_tests: {exc}")
    try:
        return (suites_file.select(rows, opts.section, only, variables),
                variables)
    except suites_file.SuiteFileError as exc:
        sys.exit(f"run_tests: {opts.suite_file}: {exc}")


def file_suites(opts):
    """The QEMU suites of --suite-file in file order, each booting the
    kernel image of its kind (--kernel, --kernel-test, --kernel-irqstat),
    and its same-lines checks, as --same-lines specs."""
    rows, variables = file_rows(opts)
    images = {"default": opts.kernel, "test": opts.kernel_test,
              "irqstat": opts.kernel_irqstat}
    parsers = kind_parsers(opts.log_dir)
    suites, same = [], []
    for row in rows:
        try:
            spec = row.spec(variables)
        except suites_file.SuiteFileError as exc:
            sys.exit(f"run_tests: {exc}")
        if row.kind == suites_file.SAME_LINES:
            same.append(f"{row.name}:{row.extra}")
            continue
        kernel = images[row.image]
        if not kernel:
            option = "--kernel" + ("" if row.image == "default"
                                   else f"-{row.image}")
            sys.exit(f"run_tests: {row.where}: {row.name} ({row.kind}) "
                     f"needs {option}")
        try:
            suites.append(parsers[row.kind](spec, kernel))
        except argparse.ArgumentTypeError as exc:
            sys.exit(f"run_tests: {row.where}: {exc}")
    return suites, same


def build_suites(opts):
    """Build the ordered suite list: host binaries first, then the
    suites of --suite-file, then those of the other options, by kind."""
    suites = [host_suite(b) for b in opts.host_bin]
    from_file, same = file_suites(opts)
    suites += from_file
    opts.same_lines = same + opts.same_lines
    parsers = kind_parsers(opts.log_dir)
    specs = [(s, parsers[kind]) for option, kind in OPTION_KINDS
             for s in getattr(opts, option)]
    if specs and not opts.kernel:
        sys.exit("run_tests: --suite/--panic-suite/--expect-suite/"
                 "--dialog-suite need --kernel")
    # KERNEL=NAME:CPUS:ARGS: a protocol suite booted with another build
    # of the kernel (the instrumented kernel-irqstat.elf)
    for s in opts.kernel_suite:
        kernel, sep, spec = s.partition("=")
        if not sep or not kernel:
            sys.exit(f"run_tests: --kernel-suite {s!r}: need KERNEL=SPEC")
        specs.append((spec, lambda spec, k, kk=kernel:
                      parse_suite_spec(spec, kk)))
    for spec, parse in specs:
        try:
            suites.append(parse(spec, opts.kernel))
        except argparse.ArgumentTypeError as exc:
            sys.exit(f"run_tests: {exc}")
    return suites


def add_file_options(ap):
    """The options of the suite file and the kernels its kinds boot."""
    ap.add_argument("--kernel-test", metavar="KERNEL",
                    help="the kernel with self-tests, for the suites of "
                    "kind kernel (build/kernel-test.elf)")
    ap.add_argument("--kernel-irqstat", metavar="KERNEL",
                    help="the kernel of the suites of kind irqstat "
                    "(build/kernel-irqstat.elf)")
    ap.add_argument("--suite-file", metavar="FILE",
                    help="boot the suites of FILE (tests/suites.txt), "
                    "in its order, before those of the options below")
    ap.add_argument("--section", action="append", default=[],
                    help="only the suites of this [SECTION] of "
                    "--suite-file (repeatable; default: all)")
    ap.add_argument("--only", action="append", default=[],
                    metavar="NAME,...",
                    help="only these suites of --suite-file (repeatable)")
    ap.add_argument("--var", action="append", default=[],
                    metavar="NAME=VALUE",
                    help="the value of {NAME} in --suite-file")
    ap.add_argument("--list", action="store_true",
                    help="print the suites to run, one per line, and "
                    "exit without running them")


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
