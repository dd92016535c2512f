#!/usr/bin/env python3
"""Host test: the kinds of benchmark row and the decision of a timed one
(tools/bench_kinds.py), make bench-check's three decisions and closing
line (tools/bench_check.py), make bench-timed's figures and timed.json
(tools/bench_timed.py), on synthetic results and timed files; no QEMU.

    test_bench_timed.py [substring]    run only tests whose name contains it
"""

import contextlib
import io
import json
import math
import os
import re
import sys
import tempfile

sys.dont_write_bytecode = True  # before our imports: no __pycache__
import host_proto  # noqa: E402
from host_proto import ROOT  # noqa: E402

import bench_check  # noqa: E402  (tools/, put on the path by host_proto)
import bench_kinds  # noqa: E402
import bench_report  # noqa: E402
import bench_timed  # noqa: E402

# 1-based ranks of the 95 % interval of the median, from binomial(n, 1/2)
# tails computed with math.comb (checked against the published tables)
RANKS = {6: (1, 6), 7: (1, 7), 8: (1, 8), 9: (2, 8), 10: (2, 9),
         12: (3, 10), 15: (4, 12), 20: (6, 15), 25: (8, 18),
         30: (10, 21), 40: (14, 27), 50: (18, 33)}


def test_ci_ranks_table():
    """The interval's ranks for known n (n = 20: x_(6) and x_(15)); none
    below n = 6, where even [x_(1), x_(n)] covers less than 95 %."""
    for n, want in RANKS.items():
        got = bench_kinds.median_ci_ranks(n)
        if got != want:
            return f"n={n}: ranks {got}, expected {want}"
    for n in range(0, 6):
        if bench_kinds.median_ci_ranks(n) is not None:
            return f"n={n}: an interval where none reaches 95 %"
    return None


def test_ci_ranks_coverage():
    """For n = 6..80: the coverage of [x_(j), x_(n+1-j)], summed here
    with math.comb in integers, is >= 95 % and that of the next narrower
    one is < 95 %."""
    def covered(n, j):
        """100 * P(j <= B <= n - j) >= 95, exactly."""
        inside = sum(math.comb(n, i) for i in range(j, n - j + 1))
        return 100 * inside >= 95 * 2 ** n
    for n in range(6, 81):
        j, k = bench_kinds.median_ci_ranks(n)
        if k != n + 1 - j or not covered(n, j) or covered(n, j + 1):
            return f"n={n}: ranks ({j}, {k}) not the narrowest at 95 %"
    return None


def test_ci_values():
    """The interval takes the sorted samples at its ranks, whatever their
    order."""
    samples = [(7 * i) % 20 + 1 for i in range(20)]  # 1..20, shuffled
    if sorted(samples) != list(range(1, 21)):
        return "bad fixture"
    got = bench_kinds.median_ci(samples)
    if got != [6, 15] or bench_kinds.median_ci([1, 2, 3]) is not None:
        return f"interval {got}, expected [6, 15] (and none for n=3)"
    return None


def test_decisions():
    """PASS within the bound, FAIL wholly beyond, INCONCLUSIVE when the
    interval straddles it, has fewer than 20 boots or no interval; for
    a max bound and a min bound."""
    cases = [({"median_max": 1.0}, [0.8, 1.0], 20, "PASS"),
             ({"median_max": 1.0}, [1.01, 1.2], 20, "FAIL"),
             ({"median_max": 1.0}, [0.9, 1.1], 20, "INCONCLUSIVE"),
             ({"median_max": 1.0}, [0.8, 0.9], 19, "INCONCLUSIVE"),
             ({"median_max": 1.0}, None, 20, "INCONCLUSIVE"),
             ({"median_min": 5}, [5, 9], 30, "PASS"),
             ({"median_min": 5}, [1, 4], 30, "FAIL"),
             ({"median_min": 5}, [4, 6], 30, "INCONCLUSIVE")]
    for bound, ci, n, want in cases:
        got, _ = bench_kinds.decide(bound, ci, n)
        if got != want:
            return f"{bound} {ci} n={n}: {got}, expected {want}"
    return None


def test_figures():
    """One boot's figure: a result's median alone, a ratio of medians
    (0 / 0 = 0), or the median of per-repetition ratios (paired)."""
    a = {"median": 6, "samples": [101, 202, 101]}
    b = {"median": 4, "samples": [100, 200, 100]}
    zero = {"median": 0, "samples": [0, 0, 0]}
    num_only = {"num": {"boot": "x", "result": "a"}}
    ratio = dict(num_only, den={"boot": "x", "result": "b"})
    paired = dict(ratio, paired=True)
    got = (bench_kinds.figure(num_only, a), bench_kinds.figure(ratio, a, b),
           bench_kinds.figure(ratio, zero, zero),
           bench_kinds.figure(paired, a, b), bench_kinds.figure(ratio, a))
    if got != (6, 1.5, 0.0, 1.01, None):
        return f"figures {got}"
    return None


def test_result_kinds():
    """make bench's results say their kind: a bounded row's own, timed
    for a result that feeds a timed row (with the single-boot note),
    reported otherwise; a timed ratio row gets its single value once
    both inputs are in."""
    meta = synthetic_meta()
    results = [bench_report.build_result(n, "us", s, meta)
               for n, s in (("det", [5]), ("num", [3, 6, 9]),
                            ("den", [10, 10, 10]), ("other", [1]))]
    kinds = {r["name"]: (r["kind"], r.get("note")) for r in results}
    note = bench_kinds.SINGLE_BOOT
    want = {"det": ("deterministic", None), "num": ("timed", note),
            "den": ("timed", note), "other": ("reported", None)}
    if kinds != want:
        return f"kinds {kinds}"
    extra = bench_report.timed_ratio_results(results, meta)
    if [(r["name"], r["median"], r["kind"]) for r in extra] != \
            [("ratio", 0.6, "timed")]:
        return f"timed ratio results {extra}"
    return None


def synthetic_meta():
    """A meta file with a deterministic row, two timed rows (a ratio of
    two results of one boot, and one row's own median) and no-bound rows."""
    spec = {"boots": 20, "num": {"boot": "alb", "result": "num"},
            "den": {"boot": "alb", "result": "den"}}
    return {"det": {"kind": "deterministic", "bound": {"median_max": 10}},
            "ratio": {"kind": "timed", "unit": "ratio", "timed": spec,
                      "bound": {"median_max": 1.0}},
            "own": {"kind": "timed", "bound": {"median_max": 100},
                    "timed": {"boots": 20,
                              "num": {"boot": "files_mttcg",
                                      "result": "own"}}},
            "num": None, "den": None, "other": {}}


def run_check(meta, results, timed):
    """bench_check.main over synthetic files: (exit code, lines)."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for what, data in (("meta", meta), ("results", results),
                           ("timed", timed)):
            paths[what] = os.path.join(tmp, what + ".json")
            if data is not None:
                with open(paths[what], "w") as f:
                    json.dump(data, f)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = bench_check.main(["--meta", paths["meta"], "--results",
                                   paths["results"], "--timed",
                                   paths["timed"]])
    return rc, out.getvalue().splitlines()


def timed_row(ci, median=0.5, n=20):
    """A timed.json row."""
    return {"bound": {"median_max": 1.0}, "n": n, "median": median,
            "samples": [median] * n, "ci": ci, "commit": "c0ffee" * 6,
            "date": "2000-01-01T00:00:00Z"}


def test_check_not_run():
    """No timed.json: each timed row is INCONCLUSIVE (not run), counted
    apart, not passed; its single-boot value is printed undecided; exit
    0 since nothing failed."""
    results = [{"name": "det", "median": 5}, {"name": "ratio", "median": 9}]
    rc, lines = run_check(synthetic_meta(), results, None)
    if rc != 0 or lines[-1] != "1 passed, 0 failed, 2 inconclusive":
        return f"rc {rc}, closing {lines[-1:]}"
    if not any(l.startswith("INCONCLUSIVE ratio: not run: make bench-timed")
               for l in lines):
        return "no not-run line"
    if not any("median 9" in l and bench_kinds.SINGLE_BOOT in l
               for l in lines):
        return "single-boot value not printed as undecided"
    return None


def test_check_timed_decisions():
    """Timed rows from timed.json: PASS and FAIL count as passed and
    failed (exit 1 only then), with the interval and the commit; the
    single-boot value never decides (9 > 1.0 here, and the row passes);
    the closing line starts `N passed, M failed` for harness parsers."""
    results = [{"name": "det", "median": 5}, {"name": "ratio", "median": 9}]
    timed = {"rows": {"ratio": timed_row([0.4, 0.6]),
                      "own": timed_row([101, 140], median=120)}}
    rc, lines = run_check(synthetic_meta(), results, timed)
    if rc != 1 or lines[-1] != "2 passed, 1 failed, 0 inconclusive":
        return f"rc {rc}, closing {lines[-1:]}"
    if not re.match(r"^\d+ passed, \d+ failed", lines[-1]):
        return "closing line unreadable by the harness"
    want = ("PASS ratio: median 0.5, 95 % interval [0.4, 0.6] <= 1.0",
            "FAIL own: median 120, 95 % interval [101, 140] <= 100")
    for w in want:
        hit = [l for l in lines if l.startswith(w)]
        if not hit or "commit c0ffeec0ffee" not in hit[0]:
            return f"no line {w!r} with its commit in {lines}"
    timed["rows"]["own"] = timed_row([90, 110], median=100)
    rc, lines = run_check(synthetic_meta(), results, timed)
    if rc != 0 or lines[-1] != "2 passed, 0 failed, 1 inconclusive":
        return f"straddling: rc {rc}, closing {lines[-1:]}"
    return None


def test_row_samples_alternating():
    """bench-timed's figures: one per round, from one boot or from the
    A and B boots of that round; a round without a result stops it."""
    spec = {"num": {"boot": "A", "result": "x"},
            "den": {"boot": "B", "result": "y"}}
    rounds = [{"A": {"x": {"median": 2 * i}}, "B": {"y": {"median": i}}}
              for i in (1, 2, 3)]
    if bench_timed.row_samples("r", spec, rounds) != [2.0, 2.0, 2.0]:
        return "A/B figures wrong"
    rows = {"r": {"timed": spec}}
    if bench_timed.boots_of(rows) != []:  # A and B are not in BOOTS
        return "boots_of invented boots"
    rounds[1]["B"] = {}
    try:
        bench_timed.row_samples("r", spec, rounds)
    except bench_report.BenchError:
        return None
    return "a round without its result gave a figure"


def test_timed_json_merge():
    """timed.json is merged by row: rerunning one row keeps the others,
    each with its own commit and date."""
    entry = {"bound": {"median_max": 1.0}}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "timed.json")
        old = {"commit": "a" * 40, "date": "2000-01-01T00:00:00Z"}
        new = {"commit": "b" * 40, "date": "2001-01-01T00:00:00Z"}
        bench_timed.merge_timed(path, {
            "r1": bench_timed.row_record(entry, [0.5] * 20, old),
            "r2": bench_timed.row_record(entry, [2.0] * 20, old)}, old)
        bench_timed.merge_timed(path, {
            "r2": bench_timed.row_record(entry, [0.5] * 20, new)}, new)
        with open(path) as f:
            got = json.load(f)
    rows = got["rows"]
    if got["commit"] != new["commit"] or rows["r1"]["commit"] != \
            old["commit"] or rows["r2"]["commit"] != new["commit"]:
        return "commits not kept per row"
    if rows["r2"]["decision"] != "PASS" or rows["r2"]["ci"] != [0.5, 0.5]:
        return f"r2 {rows['r2']['decision']} {rows['r2']['ci']}"
    return None


def test_meta_kinds():
    """tools/bench_meta.json: every kind is known, every timed row has a
    bound on its median and a definition over boots that bench_timed.py
    knows, with at least 20 boots; MTTCG rows once bounded in one boot
    are timed."""
    with open(os.path.join(ROOT, "tools", "bench_meta.json")) as f:
        meta = json.load(f)
    problems = bench_kinds.meta_problems(meta, set(bench_timed.BOOTS))
    if problems:
        return "; ".join(problems[:3])
    for name in ("bonnie_form11_over_form1_p5", "fsring_rtt_over_ipc_mttcg",
                 "matmul_w2_256_fulcrum_vs_off_norm",
                 "postmark_best2core_over_form1", "trace_lost_matmul"):
        if bench_kinds.row_kind(meta.get(name)) != "timed":
            return f"{name} is not timed"
    for name in ("sgi_trigger", "ipc_call_cross_core", "block_read_form1"):
        if (meta.get(name) or {}).get("kind") != "deterministic":
            return f"{name} is not deterministic"
    return None


def test_host_boot_runs_the_simulator():
    """sim_speed is no QEMU boot: run_boot runs the --sim program with
    its arguments and names its result as sim_bench does; a program that
    fails is a BenchError, not a figure."""
    import argparse
    import stat
    with tempfile.TemporaryDirectory() as tmp:
        fake = os.path.join(tmp, "fulsim")
        with open(fake, "w", encoding="utf-8") as f:
            f.write('#!/bin/sh\n[ "$1 $2 $3" = "--speed --repeat 1" ] || '
                    'exit 3\necho \'{"runs":[{"events_per_s":2500000.4}]}\'\n')
        os.chmod(fake, stat.S_IRWXU)
        opts = argparse.Namespace(sim=fake, out=tmp, kernel=None, meta=None,
                                  resume=False)
        got = bench_timed.run_boot("sim_speed", 1, opts, {})
        if got.get("sim_events_per_s", {}).get("median") != 2500000:
            return f"sim_speed gave {got!r}"
        with open(fake, "w", encoding="utf-8") as f:
            f.write("#!/bin/sh\nexit 1\n")
        try:
            bench_timed.run_boot("sim_speed", 2, opts, {})
        except bench_report.BenchError:
            return None
        return "a failing simulator gave a figure"


def test_resume_keeps_rounds():
    """Each boot's results are kept per round; --resume takes them for
    the same clean commit, boots again for another commit or without
    --resume."""
    import argparse
    import stat
    with tempfile.TemporaryDirectory() as tmp:
        fake, count = os.path.join(tmp, "fulsim"), os.path.join(tmp, "n")
        with open(fake, "w", encoding="utf-8") as f:
            f.write(f'#!/bin/sh\necho x >> {count}\n'
                    'echo \'{"runs":[{"events_per_s":7}]}\'\n')
        os.chmod(fake, stat.S_IRWXU)

        def runs():
            with open(count, encoding="utf-8") as f:
                return len(f.readlines())
        opts = argparse.Namespace(sim=fake, out=tmp, kernel=None, meta=None,
                                  resume=False)
        stamp = {"commit": "a" * 40, "dirty": False, "date": "d"}
        bench_timed.run_rounds(["sim_speed"], 3, opts, {}, stamp)
        opts.resume = True
        got = bench_timed.run_rounds(["sim_speed"], 4, opts, {}, stamp)
        if runs() != 4:
            return f"{runs()} runs for 3 kept rounds and one new, want 4"
        if [r["sim_speed"]["sim_events_per_s"]["median"] for r in got] != [7] * 4:
            return f"rounds {got!r}"
        bench_timed.run_rounds(["sim_speed"], 2, opts, {},
                               dict(stamp, commit="b" * 40))
        if runs() != 6:
            return "rounds of another commit were taken"
        bench_timed.run_rounds(["sim_speed"], 1, opts, {},
                               dict(stamp, commit="b" * 40, dirty=True))
        if runs() != 7:
            return "rounds were taken for a dirty tree"
    return None


def test_qemu_boot_through_bench_report():
    """run_boot of a QEMU boot goes through bench_report's boot (qemu.py
    replaced by a fake console here) and gets that boot's results by
    name, and a trace boot's lost records from its lines."""
    import argparse
    import types
    import qemu
    console = ["BENCH fsring_rtt_over_ipc_mttcg percent 3 50 36 44",
               "BENCH-DONE 1"]
    real = qemu.run_qemu

    def fake(*args, **kwargs):
        return types.SimpleNamespace(error=None, timed_out=False,
                                     elapsed=0.1, lines=list(console),
                                     stderr=[], output="")
    qemu.run_qemu = fake
    try:
        with tempfile.TemporaryDirectory() as tmp:
            opts = argparse.Namespace(kernel="k.elf", out=tmp, meta=os.devnull,
                                      sim=None, resume=False)
            with contextlib.redirect_stdout(io.StringIO()):
                got = bench_timed.run_boot("matmul3", 1, opts, {})
    finally:
        qemu.run_qemu = real
    r = got.get("fsring_rtt_over_ipc_mttcg")
    if not r or r["median"] != 44:
        return f"results {got!r}"
    return None


def test_median_of_boots():
    """bench_report --median-of-boots over five logs: each result's
    samples are the boots' medians in boot order (a result missing from
    one boot is left out), and differing boots are no error."""
    with tempfile.TemporaryDirectory() as tmp:
        logs = []
        for i, (a, b) in enumerate([(470, 9), (455, 8), (520, 7),
                                    (480, 6), (462, 5)]):
            path = os.path.join(tmp, f"boot{i}.log")
            extra = "" if i else "BENCH only_first x 1 1\n"
            with open(path, "w", encoding="utf-8") as f:
                f.write(f"BENCH split permille 3 {a - 1} {a} {a + 9}\n"
                        f"BENCH other n 1 {b}\n{extra}"
                        f"BENCH-DONE {3 if extra else 2}\n")
            logs += ["--from-log", path]
        out, meta = os.path.join(tmp, "out"), os.path.join(tmp, "meta")
        with open(meta, "w", encoding="utf-8") as f:
            f.write("{}")
        with contextlib.redirect_stdout(io.StringIO()):
            rc = bench_report.main(["--out", out, "--meta", meta,
                                    "--median-of-boots"] + logs)
        with open(os.path.join(out, "results.json"), encoding="utf-8") as f:
            got = {r["name"]: r for r in json.load(f)}
    if rc:
        return f"exit {rc}"
    if got["split"]["samples"] != [470, 455, 520, 480, 462] or \
            got["split"]["median"] != 470:
        return f"split: {got['split']['samples']}, median {got['split']['median']}"
    if "only_first" in got or got["other"]["samples"] != [9, 8, 7, 6, 5]:
        return f"names {sorted(got)}"
    return None


TESTS = [
    ("ci_ranks_table", test_ci_ranks_table),
    ("ci_ranks_coverage", test_ci_ranks_coverage),
    ("ci_values", test_ci_values),
    ("decisions", test_decisions),
    ("figures", test_figures),
    ("result_kinds", test_result_kinds),
    ("check_not_run", test_check_not_run),
    ("check_timed_decisions", test_check_timed_decisions),
    ("row_samples_alternating", test_row_samples_alternating),
    ("timed_json_merge", test_timed_json_merge),
    ("meta_kinds", test_meta_kinds),
    ("host_boot_runs_the_simulator", test_host_boot_runs_the_simulator),
    ("median_of_boots", test_median_of_boots),
    ("qemu_boot_through_bench_report", test_qemu_boot_through_bench_report),
    ("resume_keeps_rounds", test_resume_keeps_rounds),
]

if __name__ == "__main__":
    sys.exit(host_proto.run_tests(TESTS, sys.argv))
