#!/usr/bin/env python3
"""The table of every bound and its kind, for docs/benchmarks.md.

    bench_bounds.py [--meta tools/bench_meta.json]       print the table
    bench_bounds.py --check docs/benchmarks.md          exit 1 if stale

The table is generated from tools/bench_meta.json (tools/bench_kinds.py
says what the kinds mean) and lives in docs/benchmarks.md between the
two marker lines BEGIN and END below; `--check` compares it with a
fresh one (tests/host/test_bench_check.py runs it), so the docs cannot
name a bound or a kind the checker no longer has. Rows whose names
differ only in a number or a policy are listed one per line all the
same: the table is for looking a row up.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, HERE)
import bench_kinds  # noqa: E402

BEGIN = "<!-- bench_bounds.py: begin (generated; edit bench_meta.json) -->"
END = "<!-- bench_bounds.py: end -->"


def limit_text(key, limit):
    """One bound key as text: `median <= 100`, `mean / other's <= 1.0`,
    `median of the per-run ratios to other's <= 1.02`."""
    stat, _, side = key.rpartition("_")
    rel = "<=" if side == "max" else ">="
    if not stat.endswith("_ratio"):
        return f"{stat} {rel} {limit}"
    stat = stat[: -len("_ratio")]
    value, others = limit
    others = others if isinstance(others, list) else [others]
    names = " and ".join(f"`{o}`'s" for o in others)
    if stat == "paired":
        return f"median of the per-run ratios to {names} {rel} {value}"
    return f"{stat} / {names} {rel} {value}"


def table(meta):
    """The markdown table: name, kind, bound, for every bounded row."""
    lines = ["| row | kind | bound |", "|---|---|---|"]
    for name, entry in meta.items():
        bound = (entry or {}).get("bound")
        if not bound:
            continue
        kind = bench_kinds.row_kind(entry)
        text = "; ".join(limit_text(k, v) for k, v in bound.items())
        if kind == "timed":
            text += f" ({entry['timed']['boots']} boots)"
        if entry.get("unreachable"):
            kind += ", marked unreachable"
        lines.append(f"| `{name}` | {kind} | {text} |")
    return lines


def docs_table(path):
    """The lines between BEGIN and END in the file at path (None if the
    markers are missing)."""
    with open(path, encoding="utf-8") as f:
        text = f.read().splitlines()
    if BEGIN not in text or END not in text:
        return None
    return text[text.index(BEGIN) + 1:text.index(END)]


def main(argv=None):
    """Print the table, or check the docs' copy of it."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--meta", default=os.path.join(HERE, "bench_meta.json"))
    ap.add_argument("--check", metavar="DOC",
                    help="compare DOC's generated table with a fresh one")
    opts = ap.parse_args(argv)
    with open(opts.meta, encoding="utf-8") as f:
        fresh = table(json.load(f))
    if not opts.check:
        print("\n".join([BEGIN] + fresh + [END]))
        return 0
    have = docs_table(opts.check)
    if have is None:
        print(f"{opts.check}: no generated bounds table (markers missing)")
        return 1
    if have != fresh:
        stale = sorted(set(have) ^ set(fresh))
        print(f"{opts.check}: the bounds table is stale ({len(stale)} lines "
              f"differ, e.g. {stale[0]!r}); regenerate it with "
              f"python3 tools/bench_bounds.py")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
