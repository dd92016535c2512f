#!/usr/bin/env python3
"""Check benchmark results against the bounds in bench_meta.json.

Called by `make bench-check`. Each bounded row has a kind
(tools/bench_kinds.py). A deterministic row is decided by the one run in
results.json. A bound is an object such as {"median_max": 20}: each key
is <stat>_max or <stat>_min where <stat> is one of min, median, max,
mean from results.json. {"median_ratio_max": [1.5, "other"]} bounds this
benchmark's median over another's; with a list of others, over each of
them. {"paired_ratio_max": [1.02, "other"]} bounds the median of the
per-run ratios, sample i over the other's sample i. A bounded
deterministic benchmark missing from the results fails.

A timed row is decided from build/bench/timed.json (make bench-timed):
PASS, FAIL or INCONCLUSIVE with its 95 % interval, the commit and date
of its boots; a row not in it is INCONCLUSIVE (not run). Its single-boot
value in results.json is printed as `single boot, not decided` and
decides nothing.

A bounded row may carry "unreachable": why no policy of its kind can meet
the bound, with the numbers (the family's docs/bench-*.md has the full account).
It is still checked and printed: a miss is `UNREACHABLE` (counted apart,
not a failure), a pass is a PASS with a note that the mark is stale.

Ends with `N passed, M failed, K inconclusive` (and `, U unreachable`
when some are); exits 1 only if some bound failed.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, HERE)
import bench_kinds  # noqa: E402  (the kinds and the timed decision)
from bench_kinds import FAIL, INCONCLUSIVE, PASS  # noqa: E402

UNREACHABLE = "UNREACHABLE"

STATS = ("min", "median", "max", "mean")


def load_json(path):
    """Load a JSON file or exit with a clear message."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as exc:
        sys.exit(f"bench_check: cannot read {path}: {exc}")


def check_ratio(name, key, limit, by_name):
    """A bound on this benchmark's stat over another benchmark's (or over
    each of a list of others: all must hold)."""
    stat = key[: -len("_ratio_max")]
    bound, other = limit
    if isinstance(other, list):
        results = [check_ratio(name, key, [bound, o], by_name) for o in other]
        return (all(ok for ok, _ in results),
                "\n".join(message for _, message in results))
    if stat not in STATS and stat != "paired":
        return False, f"FAIL {name}: bad ratio bound {key!r} {limit!r}"
    if other not in by_name:
        hint = " (make bench-linux)" if other.startswith("linux_") else ""
        return False, f"FAIL {name}: {other} is missing from the results{hint}"
    if stat == "paired":
        ratio = bench_kinds.paired_ratio(by_name[name].get("samples"),
                                         by_name[other].get("samples"))
        if ratio is None:
            return False, (f"FAIL {name}: no samples to pair with "
                           f"{other}'s")
        ok = ratio <= bound
        word, rel = ("OK", "<=") if ok else ("FAIL", ">")
        return ok, (f"{word} {name} / {other}, median of the per-run "
                    f"ratios = {ratio:.3f} {rel} {bound}")
    ratio = bench_kinds.ratio(by_name[name][stat], by_name[other][stat])
    ok = ratio <= bound
    word, rel = ("OK", "<=") if ok else ("FAIL", ">")
    return ok, (f"{word} {name} {stat} / {other} {stat} = {ratio:.2f} "
                f"{rel} {bound}")


def check_one(name, key, limit, result):
    """Return (ok, message) for one bound key of one benchmark."""
    stat, _, kind = key.rpartition("_")
    if stat not in STATS or kind not in ("max", "min"):
        return False, f"FAIL {name}: unknown bound {key!r}"
    value = result[stat]
    if kind == "max":
        ok, rel = value <= limit, ("<=" if value <= limit else ">")
    else:
        ok, rel = value >= limit, (">=" if value >= limit else "<")
    word = "OK" if ok else "FAIL"
    return ok, f"{word} {name} {stat} {value} {rel} {limit}"


def check_deterministic(name, bound, by_name):
    """(decisions, lines) of a deterministic row: one decision (PASS or
    FAIL) per bound key, from the one run in results.json."""
    if name not in by_name:
        return [FAIL], [f"FAIL {name}: missing from results"]
    decisions, lines = [], []
    for key, limit in bound.items():
        if key.endswith("_ratio_max"):
            ok, message = check_ratio(name, key, limit, by_name)
        else:
            ok, message = check_one(name, key, limit, by_name[name])
        decisions.append(PASS if ok else FAIL)
        lines.append(message)
    return decisions, lines


def check_timed(name, bound, row, single):
    """(decision, lines) of a timed row: its decision from its timed.json
    `row` (None: not run, INCONCLUSIVE) against the current bound, and
    its single-boot result from results.json (`single`, or None), which
    decides nothing."""
    if row is None:
        decision = INCONCLUSIVE
        lines = [f"{decision} {name}: not run: make bench-timed "
                 f"ROWS={name}"]
    else:
        decision, why = bench_kinds.decide(bound, row.get("ci"), row["n"])
        lines = [f"{decision} {name}: median {row['median']:.4g}, 95 % "
                 f"interval {bench_kinds.format_ci(row.get('ci'))} "
                 f"{bench_kinds.bound_text(bound)}: {why} (n={row['n']}; "
                 f"commit {row.get('commit', '?')[:12]}, "
                 f"{row.get('date', '?')})"]
    if single is not None:
        lines.append(f"  {name}: median {single['median']} in results.json: "
                     f"{bench_kinds.SINGLE_BOOT}")
    return decision, lines


def mark_unreachable(name, why, decisions, lines):
    """A row marked unreachable in principle: its misses become
    UNREACHABLE (with the reason), its passes stay PASS with a note that
    the mark no longer holds."""
    missed = [d == FAIL for d in decisions]
    lines = [f"{UNREACHABLE} {line[len('FAIL '):]}" if line.startswith("FAIL ")
             else line for line in lines]
    if any(missed):
        lines.append(f"  {name}: unreachable in principle: {why}")
    if not all(missed):
        lines.append(f"  note: {name} met a bound marked unreachable: "
                     f"drop the mark in bench_meta.json")
    return [UNREACHABLE if m else d for d, m in zip(decisions, missed)], lines


def check_all(meta, results, timed=None):
    """Print one line per decision; return {PASS: n, FAIL: m,
    INCONCLUSIVE: k, UNREACHABLE: u}. `timed` is timed.json's content (None: absent)."""
    by_name = {r["name"]: r for r in results}
    timed_rows = (timed or {}).get("rows", {})
    counts = {PASS: 0, FAIL: 0, INCONCLUSIVE: 0, UNREACHABLE: 0}
    for name, entry in meta.items():
        bound = (entry or {}).get("bound")
        if not bound:
            continue
        if bench_kinds.row_kind(entry) == "timed":
            decision, lines = check_timed(name, bound, timed_rows.get(name),
                                          by_name.get(name))
            decisions = [decision]
        else:
            decisions, lines = check_deterministic(name, bound, by_name)
            if entry.get("unreachable"):
                decisions, lines = mark_unreachable(
                    name, entry["unreachable"], decisions, lines)
        print("\n".join(lines))
        for decision in decisions:
            counts[decision] += 1
    return counts


def unkinded(meta):
    """Bounded rows of meta without an explicit kind."""
    return [name for name, entry in meta.items()
            if (entry or {}).get("bound") and not entry.get("kind")]


def closing_line(counts):
    """`N passed, M failed, K inconclusive[, U unreachable]` (harness
    parsers read the `N passed, M failed` at its start)."""
    line = (f"{counts[PASS]} passed, {counts[FAIL]} failed, "
            f"{counts[INCONCLUSIVE]} inconclusive")
    if counts.get(UNREACHABLE):
        line += f", {counts[UNREACHABLE]} unreachable"
    return line


def main(argv=None):
    """Run the checks and exit 1 if any failed."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default="build/bench/results.json")
    ap.add_argument("--timed", default="build/bench/timed.json",
                    help="the decisions of make bench-timed (may be absent)")
    ap.add_argument("--meta", default=os.path.join(HERE, "bench_meta.json"))
    opts = ap.parse_args(argv)
    meta = load_json(opts.meta)
    results = load_json(opts.results)
    timed = load_json(opts.timed) if os.path.exists(opts.timed) else None
    counts = check_all(meta, results, timed)
    loose = unkinded(meta)
    if loose:
        print(f"note: {len(loose)} bounded rows have no kind in "
              f"bench_meta.json (decided as deterministic): "
              f"{', '.join(loose)}")
    print(closing_line(counts))
    return 1 if counts[FAIL] else 0


if __name__ == "__main__":
    sys.exit(main())
