#!/usr/bin/env python3
"""Check benchmark results against the bounds in bench_meta.json.

Called by `make bench-check`. A bound is an object such as
{"median_max": 20}: each key is <stat>_max or <stat>_min where <stat> is
one of min, median, max, mean from results.json. {"median_ratio_max":
[1.5, "other"]} bounds this benchmark's median over another's; with a
list of others, over each of them. {"paired_ratio_max": [1.02, "other"]}
bounds the median of the per-run ratios, sample i over the other's
sample i: for two benchmarks run back to back in each repetition, so
that the host's speed, which drifts between repetitions, cancels out of
each ratio. A bounded
benchmark missing from the results fails. Ends with `N passed, M failed`.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
STATS = ("min", "median", "max", "mean")


def load_json(path):
    """Load a JSON file or exit with a clear message."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as exc:
        sys.exit(f"bench_check: cannot read {path}: {exc}")


def paired_ratio(a, b):
    """Median of a[i] / b[i] (0 / 0 counts as 0), or None if the two
    sample lists cannot be paired."""
    if not a or len(a) != len(b):
        return None
    rs = sorted(x / y if y else (0.0 if x == 0 else float("inf"))
                for x, y in zip(a, b))
    n = len(rs)
    return rs[n // 2] if n % 2 else (rs[n // 2 - 1] + rs[n // 2]) / 2


def check_ratio(name, key, limit, by_name):
    """A bound on this benchmark's stat over another benchmark's (or over
    each of a list of others: all must hold)."""
    stat = key[: -len("_ratio_max")]
    bound, other = limit
    if isinstance(other, list):
        results = [check_ratio(name, key, [bound, o], by_name) for o in other]
        return (all(ok for ok, _ in results),
                "\n".join(message for _, message in results))
    if (stat not in STATS and stat != "paired") or other not in by_name:
        return False, f"FAIL {name}: bad ratio bound {key!r} {limit!r}"
    if stat == "paired":
        ratio = paired_ratio(by_name[name].get("samples"),
                             by_name[other].get("samples"))
        if ratio is None:
            return False, (f"FAIL {name}: no samples to pair with "
                           f"{other}'s")
        ok = ratio <= bound
        word, rel = ("OK", "<=") if ok else ("FAIL", ">")
        return ok, (f"{word} {name} / {other}, median of the per-run "
                    f"ratios = {ratio:.3f} {rel} {bound}")
    num, den = by_name[name][stat], by_name[other][stat]
    # 0 / 0 is within any bound (e.g. no migrations under either policy)
    ratio = num / den if den else (0.0 if num == 0 else float("inf"))
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


def check_all(meta, results):
    """Print one line per bound check; return (passed, failed)."""
    by_name = {r["name"]: r for r in results}
    passed = failed = 0
    for name, entry in meta.items():
        bound = entry.get("bound")
        if not bound:
            continue
        if name not in by_name:
            print(f"FAIL {name}: missing from results")
            failed += 1
            continue
        for key, limit in bound.items():
            if key.endswith("_ratio_max"):
                ok, message = check_ratio(name, key, limit, by_name)
            else:
                ok, message = check_one(name, key, limit, by_name[name])
            print(message)
            passed, failed = passed + ok, failed + (not ok)
    return passed, failed


def main(argv=None):
    """Run the checks and exit 1 if any failed."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default="build/bench/results.json")
    ap.add_argument("--meta", default=os.path.join(HERE, "bench_meta.json"))
    opts = ap.parse_args(argv)
    meta = load_json(opts.meta)
    results = load_json(opts.results)
    passed, failed = check_all(meta, results)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
