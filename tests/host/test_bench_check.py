#!/usr/bin/env python3
"""Host test: tools/bench_check.py's ratio bounds, and the bounds of
ubench=alb (paper 001's workloads) in tools/bench_meta.json.

    test_bench_check.py [substring]    run only tests whose name contains it
"""

import json
import os
import sys

sys.dont_write_bytecode = True  # before our imports: no __pycache__
import host_proto  # noqa: E402
from host_proto import ROOT  # noqa: E402

import bench_check  # noqa: E402  (tools/, put on the path by host_proto)

SETS = ("lz77", "crc", "queens", "matmul", "memcpy", "set1", "set2", "set3")


def ratio(num, den, bound):
    by_name = {"a": {"median": num}, "b": {"median": den}}
    ok, _ = bench_check.check_ratio("a", "median_ratio_max", [bound, "b"],
                                    by_name)
    return ok


def test_ratio_plain():
    """11 / 10 passes 1.1 and fails 1.05."""
    if not ratio(11, 10, 1.1) or ratio(11, 10, 1.05):
        return "11 / 10 against 1.1 and 1.05 judged wrongly"
    return None


def test_ratio_zero_over_zero():
    """0 / 0 (no migrations under either policy) is within any bound,
    n / 0 within none, and neither raises."""
    if not ratio(0, 0, 1.0):
        return "0 / 0 failed a bound of 1.0"
    if ratio(3, 0, 1.0):
        return "3 / 0 passed a bound of 1.0"
    return None


def test_ratio_over_each_of_a_list():
    """A list of others bounds the ratio over each: one too small fails
    the whole bound (opzone's wake-up latency against both always-balance
    policies)."""
    by_name = {"a": {"mean": 5}, "b": {"mean": 10}, "c": {"mean": 4}}
    ok_b, _ = bench_check.check_ratio("a", "mean_ratio_max", [1.0, ["b"]],
                                      by_name)
    ok_bc, msg = bench_check.check_ratio("a", "mean_ratio_max",
                                         [1.0, ["b", "c"]], by_name)
    if not ok_b or ok_bc or msg.count("\n") != 1:
        return f"list ratio judged wrongly: {ok_b} {ok_bc} {msg!r}"
    return None


def paired(a, b, bound):
    by_name = {"a": {"name": "a", "samples": a},
               "b": {"name": "b", "samples": b}}
    ok, _ = bench_check.check_ratio("a", "paired_ratio_max", [bound, "b"],
                                    by_name)
    return ok


def test_paired_ratio():
    """The paired bound takes the median of sample-by-sample ratios:
    a host twice as fast in one repetition cancels out of it, where the
    ratio of the medians would not; unpaired samples fail."""
    # a is 1 % slower than b in each run; the host's speed drifts 2x
    a, b = [101, 202, 101, 202, 101], [100, 200, 100, 200, 100]
    if not paired(a, b, 1.02) or paired(a, b, 1.005):
        return "paired ratio judged wrongly on a drifting host"
    # a slower in 2 of 3 runs (ratios 1.10, 1.05, 0.91): the paired
    # median is 1.05, where the ratio of the medians (110 / 115) is 0.96
    a, b = [110, 210, 105], [100, 200, 115]
    if paired(a, b, 1.0) or not paired(a, b, 1.06):
        return "paired median not taken over the per-run ratios"
    if paired([1, 2], [1, 2, 3], 9.0) or paired([], [], 9.0):
        return "unpaired or empty samples passed"
    if not paired([0, 0, 0], [0, 0, 0], 1.0):
        return "0 / 0 runs not within the bound"
    return None


def test_alb_bounds():
    """Every set has alb's migrations bounded by count's and its
    completion by 1.02 times count's (paired: the two policies run back
    to back in each repetition), as timed rows over ubench=alb boots;
    the single-boot rows themselves carry no bound."""
    with open(os.path.join(ROOT, "tools", "bench_meta.json")) as f:
        meta = json.load(f)
    for s in SETS:
        want = {f"migrations_alb_over_count_{s}":
                (1.0, f"migrations_alb_{s}", f"migrations_count_{s}", False),
                f"completion_alb_over_count_{s}":
                (1.02, f"completion_alb_{s}", f"completion_count_{s}", True)}
        for name, (limit, num, den, paired) in want.items():
            entry = meta.get(name) or {}
            spec = entry.get("timed") or {}
            got = (entry.get("kind"), entry.get("bound"),
                   spec.get("num"), spec.get("den"), bool(spec.get("paired")))
            expect = ("timed", {"median_max": limit},
                      {"boot": "alb", "result": num},
                      {"boot": "alb", "result": den}, paired)
            if got != expect:
                return f"{name}: {got!r}, expected {expect!r}"
            if (meta.get(num) or {}).get("bound"):
                return f"{num} still has a single-boot bound"
    return None


def test_missing_peer_named():
    """A ratio bound whose other row is missing fails and says which row
    (and, for a Linux peer, the target that makes it)."""
    ok, msg = bench_check.check_ratio("a", "median_ratio_max",
                                      [3.0, "linux_read_4k"],
                                      {"a": {"median": 1}})
    if ok or "linux_read_4k is missing" not in msg or \
            "make bench-linux" not in msg:
        return f"{ok} {msg!r}"
    return None


def test_unreachable_mark():
    """A row marked unreachable: a miss is UNREACHABLE with its reason,
    counted apart, not a failure; a pass stays PASS with a stale-mark
    note; an unmarked miss still fails."""
    import contextlib
    import io
    meta = {"a": {"kind": "deterministic", "bound": {"mean_max": 1},
                  "unreachable": "because"},
            "b": {"kind": "deterministic", "bound": {"mean_max": 1}}}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        counts = bench_check.check_all(
            meta, [{"name": "a", "mean": 2}, {"name": "b", "mean": 2}])
    text = out.getvalue()
    if counts[bench_check.FAIL] != 1 or counts[bench_check.UNREACHABLE] != 1:
        return f"counts {counts!r}: expected one FAIL (b), one UNREACHABLE"
    if "UNREACHABLE a mean 2 > 1" not in text or "because" not in text:
        return f"the unreachable row's lines: {text!r}"
    if not bench_check.closing_line(counts).endswith(", 1 unreachable"):
        return f"closing line {bench_check.closing_line(counts)!r}"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        counts = bench_check.check_all(meta, [{"name": "a", "mean": 0.5},
                                              {"name": "b", "mean": 0.5}])
    if counts[bench_check.PASS] != 2 or "drop the mark" not in out.getvalue():
        return f"a met bound marked unreachable: {counts!r} {out.getvalue()!r}"
    return None


def test_unreachable_rows_say_why():
    """Every row of bench_meta.json marked unreachable has a bound, is
    deterministic and gives its reason with a figure in it."""
    with open(os.path.join(ROOT, "tools", "bench_meta.json"),
              encoding="utf-8") as f:
        meta = json.load(f)
    for name, entry in meta.items():
        why = (entry or {}).get("unreachable")
        if why is None:
            continue
        if not entry.get("bound") or entry.get("kind") != "deterministic":
            return f"{name}: marked unreachable without a deterministic bound"
        if not isinstance(why, str) or not any(ch.isdigit() for ch in why):
            return f"{name}: its reason gives no numbers: {why!r}"
    return None


TESTS = [
    ("ratio_plain", test_ratio_plain),
    ("ratio_zero_over_zero", test_ratio_zero_over_zero),
    ("ratio_over_each_of_a_list", test_ratio_over_each_of_a_list),
    ("paired_ratio", test_paired_ratio),
    ("alb_bounds", test_alb_bounds),
    ("missing_peer_named", test_missing_peer_named),
    ("unreachable_mark", test_unreachable_mark),
    ("unreachable_rows_say_why", test_unreachable_rows_say_why),
]

if __name__ == "__main__":
    sys.exit(host_proto.run_tests(TESTS, sys.argv))
