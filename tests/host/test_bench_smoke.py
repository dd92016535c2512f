#!/usr/bin/env python3
"""Host test: tools/bench_smoke.py's verdicts, on saved logs instead of
boots (bench_report.py --from-log goes through the same parser). A boot
passes only with at least one well-formed BENCH line and a BENCH-DONE
that counts them; coverage fails when a bounded benchmark, other than
bench-linux's, gave no result; a tool's result needs a unit and numeric
samples. And the smoke boots are the Makefile's: the same ubench=
values as its bench rule.

    test_bench_smoke.py [substring]    run only tests whose name contains it
"""

import argparse
import json
import os
import re
import sys
import tempfile

sys.dont_write_bytecode = True  # before our imports: no __pycache__
import host_proto  # noqa: E402
from host_proto import ROOT  # noqa: E402

import bench_smoke  # noqa: E402  (tools/, on the path via host_proto)

GOOD = ["Fulcrum: 4 cores", "BENCH null_syscall instructions 3 94 94 95",
        "BENCH-STAT null_syscall mean 94", "BENCH-DONE 1"]


def verdict(lines, args=""):
    """run_boot()'s verdict on a boot that printed @lines (None: pass),
    and the names in the results.json it leaves."""
    with tempfile.TemporaryDirectory(prefix="fulcrum-smoke-") as tmp:
        log = os.path.join(tmp, "boot.log")
        with open(log, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        opts = argparse.Namespace(out=tmp, kernel="-", kernel_irqstat="-",
                                  timeout=10)
        boot = bench_smoke.Boot("x", f"--from-log {log} {args}")
        why = bench_smoke.run_boot(boot, opts, {})
        path = os.path.join(tmp, "results.json")
        names = []
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                names = [r["name"] for r in json.load(f)]
    return why, names


def expect_fail(lines, needle, args=""):
    """Why the verdict on @lines is not a failure naming @needle."""
    why, names = verdict(lines, args)
    if not why or needle not in why:
        return f"verdict {why!r}, want one with {needle!r}"
    return f"results {names} written for a failed boot" if names else None


def test_wellformed_passes():
    """BENCH lines counted by BENCH-DONE: pass, results kept."""
    why, names = verdict(GOOD)
    if why:
        return f"failed: {why}"
    return None if names == ["null_syscall"] else f"results {names}"


def test_no_results_fails():
    """A program that prints no result (BENCH-DONE 0) fails."""
    return expect_fail(GOOD[:1] + ["BENCH-DONE 0"], "no BENCH line")


def test_silent_fails():
    """A boot with no BENCH-DONE line (the program never ended) fails."""
    return expect_fail(GOOD[:1], "no BENCH-DONE")


def test_malformed_fails():
    """A BENCH line whose n disagrees with its samples fails, and so
    does one with a sample that is not an integer."""
    bad = GOOD[:1] + ["BENCH null_syscall instructions 4 94 94 95",
                      "BENCH-DONE 1"]
    why = expect_fail(bad, "n=4 but 3 samples")
    return why or expect_fail(GOOD[:1] + [
        "BENCH null_syscall instructions 2 94 x", "BENCH-DONE 1"],
        "malformed BENCH line")


def test_miscounted_fails():
    """BENCH-DONE must count the BENCH lines."""
    return expect_fail(GOOD[:3] + ["BENCH-DONE 2"], "BENCH-DONE 2 but 1")


def test_panic_fails():
    """A PANIC line fails the boot whatever else it printed."""
    return expect_fail(GOOD[:2] + ["PANIC on cpu1: bad"] + GOOD[3:],
                       "kernel panic")


def test_only_nothing_kept_fails():
    """A boot whose results are filtered (--only, the IRQ-stat kernel's
    wake_irqmask_*) fails if none is left."""
    return expect_fail(GOOD, "matching wake_irqmask_*",
                       "--only wake_irqmask_*")


def test_coverage():
    """Coverage: a bounded benchmark missing fails; an unbounded one or a
    linux_* one does not count."""
    meta = {"a": {"bound": {"median_max": 1}}, "b": {"bound": None},
            "linux_x": {"bound": {"median_max": 1}}, "c": None}
    with tempfile.TemporaryDirectory(prefix="fulcrum-smoke-") as tmp:
        opts = argparse.Namespace(out=tmp)
        if "a" not in (bench_smoke.coverage_problem(opts, meta) or ""):
            return "a missing from empty results: not reported"
        bench_smoke.merge_into(tmp, [{"name": "a"}])
        why = bench_smoke.coverage_problem(opts, meta)
    return f"a present, yet {why!r}" if why else None


def test_entry_problem():
    """A tool's result needs a unit, numeric samples and a median."""
    good = {"name": "t", "unit": "insn", "samples": [2.0], "median": 2.0}
    if bench_smoke.entry_problem(good):
        return f"good entry refused: {bench_smoke.entry_problem(good)}"
    for bad in ({**good, "samples": []}, {**good, "samples": ["2"]},
                {**good, "unit": ""}, {**good, "median": None}):
        if not bench_smoke.entry_problem(bad):
            return f"bad entry accepted: {bad}"
    return None


def ubench_values(text):
    """The ubench= values in @text, outside comments; `ubench=$$b...` in
    a `for b in LIST;` loop of the same logical line stands for each
    word of LIST."""
    values = set()
    for line in text.replace("\\\n", " ").splitlines():
        if line.lstrip().startswith("#"):
            continue
        loop = re.search(r"for b in ([^;]+);", line)
        for m in re.finditer(r"ubench=(\S+?)(?=[\s;|]|$)", line):
            v = m.group(1)
            if v.startswith("$$b") and loop:
                values |= {w + v[3:] for w in loop.group(1).split()}
            else:
                values.add(v)
    return values


def test_makefile_boots():
    """bench_smoke.BOOTS boots what make bench boots: the same set of
    ubench= values (a benchmark added to or dropped from the Makefile
    and not here fails)."""
    with open(os.path.join(ROOT, "Makefile"), encoding="utf-8") as f:
        make = ubench_values(f.read())
    smoke = ubench_values("\n".join(b.args for b in bench_smoke.BOOTS))
    if not make:
        return "no ubench= value found in the Makefile"
    if make != smoke:
        return (f"only in the Makefile: {sorted(make - smoke)}; only in "
                f"bench_smoke.BOOTS: {sorted(smoke - make)}")
    return None


TESTS = [
    ("wellformed_passes", test_wellformed_passes),
    ("no_results_fails", test_no_results_fails),
    ("silent_fails", test_silent_fails),
    ("malformed_fails", test_malformed_fails),
    ("miscounted_fails", test_miscounted_fails),
    ("panic_fails", test_panic_fails),
    ("only_nothing_kept_fails", test_only_nothing_kept_fails),
    ("coverage", test_coverage),
    ("entry_problem", test_entry_problem),
    ("makefile_boots", test_makefile_boots),
]

if __name__ == "__main__":
    sys.exit(host_proto.run_tests(TESTS, sys.argv))
