#!/usr/bin/env python3
"""Paper 000 Tables IV and V from build/bench/results.json, as Markdown.

Reads the matmul_* entries written by `make bench` (ubench=matmul on 4
and on 3 cores) and prints the tables of docs/bench-balancer.md's method: medians of
the repetitions, with the range of the ratios, next to the paper's
figures from tools/bench_meta.json. Prints nothing for a configuration
that is missing from the results.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SIZES = (32, 64, 128, 256)
MODES = ("off", "mginkgo", "fulcrum")


def load(path):
    """Load a JSON file."""
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def ms(res):
    """A makespan entry as milliseconds (median)."""
    return f"{res['median'] / 1000:.0f}" if res else "-"


def ratio(res):
    """A permille entry as 'median (min-max)', in units of 1."""
    if not res:
        return "-"
    return (f"{res['median'] / 1000:.3f} "
            f"({res['min'] / 1000:.2f}-{res['max'] / 1000:.2f})")


def moves(res):
    """A moves entry as 'median (min-max)'."""
    if not res:
        return "-"
    return f"{res['median']} ({res['min']}-{res['max']})"


def paper_cells(meta, key, n):
    """The paper's off / on figures and its on/off ratio for size n."""
    fig = lambda suffix: ((meta.get(key.format(n, suffix)) or {})  # noqa
                          .get("paper") or {})
    pr = fig("mginkgo_vs_off")
    cell = f"{pr['average'] / 1000:.3f}" if "average" in pr else "-"
    if pr.get("printed_average") is not None:
        cell += f" (as printed: {pr['printed_average'] / 1000:.3f})"
    return [f"{fig('off').get('figure', '-')} / "
            f"{fig('mginkgo').get('figure', '-')}", cell]


def table_iv(by, meta, w):
    """Makespans and on/off ratios per size (the paper's Table IV)."""
    key = f"matmul_w{w}_{{}}_{{}}"
    head = ("| N | off (ms) | mginkgo (ms) | fulcrum (ms) | "
            "mginkgo / off | fulcrum / off |")
    if w == 3:
        head += " paper off / on (1000 cycles) | paper on / off |"
    lines = [head, "|" + "---:|" * (head.count("|") - 1)]
    for n in SIZES:
        g = lambda suffix: by.get(key.format(n, suffix))  # noqa: E731
        if not g("off"):
            continue
        row = [f"{n}x{n}"] + [ms(g(m)) for m in MODES]
        row += [ratio(g(f"{m}_vs_off")) for m in MODES[1:]]
        if w == 3:
            row += paper_cells(meta, key, n)
        lines.append("| " + " | ".join(row) + " |")
    return lines if len(lines) > 2 else []


def table_quality(by, w):
    """Moves, distance to the ideal, host-normalized on/off per size."""
    key = f"matmul_w{w}_{{}}_{{}}"
    head = ("| N | moves mginkgo | moves fulcrum | off / ideal | "
            "mginkgo / ideal | fulcrum / ideal | mginkgo / off, normalized | "
            "fulcrum / off, normalized |")
    lines = [head, "|" + "---:|" * (head.count("|") - 1)]
    for n in SIZES:
        g = lambda suffix: by.get(key.format(n, suffix))  # noqa: E731
        if not g("off"):
            continue
        row = [f"{n}x{n}"] + [moves(g(f"{m}_moves")) for m in MODES[1:]]
        row += [ratio(g(f"{m}_vs_ideal")) for m in MODES]
        row += [ratio(g(f"{m}_vs_off_norm")) for m in MODES[1:]]
        lines.append("| " + " | ".join(row) + " |")
    return lines if len(lines) > 2 else []


def pct(res):
    """A ppm entry as a percentage (median)."""
    return f"{res['median'] / 10000:.2f} %" if res else "-"


def table_v(by, meta, w):
    """Per-core utilization of the largest size, and the balancer."""
    n = SIZES[-1]
    key = f"matmul_w{w}_{n}_{{}}_util_cpu{{}}"
    head = "| core | off | mginkgo | fulcrum |"
    if w == 3:
        head += " paper off | paper on |"
    lines = [head, "|---|" + "---:|" * (head.count("|") - 2)]
    for c in range(w + 1):
        if not by.get(key.format("off", c)):
            continue
        row = [f"CPU{c}"] + [pct(by.get(key.format(m, c))) for m in MODES]
        if w == 3:
            for m in ("off", "mginkgo"):
                p = (meta.get(key.format(m, c)) or {}).get("paper") or {}
                avg = p.get("average")
                row.append(f"{avg / 10000:g} %" if avg is not None else "-")
        lines.append("| " + " | ".join(row) + " |")
    bal = [by.get(f"matmul_w{w}_{n}_{m}_balancer") for m in MODES[1:]]
    if any(bal):
        row = ["balancer thread (share of CPU0)", "-"]
        row += [f"{r['median'] / 10000:.3f} %" if r else "-" for r in bal]
        if w == 3:
            row += ["-", "0.0082 %"]
        lines.append("| " + " | ".join(row) + " |")
    return lines if len(lines) > 2 else []


def main(argv=None):
    """Print the tables of every configuration found."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="?", default="build/bench/results.json")
    ap.add_argument("--meta", default=os.path.join(HERE, "bench_meta.json"))
    opts = ap.parse_args(argv)
    by = {r["name"]: r for r in load(opts.results)}
    meta = load(opts.meta)
    for w, what in ((3, "4 cores, 3 workers, tasks 10/7/7"),
                    (2, "3 cores, 2 workers, tasks 10/6")):
        iv, v = table_iv(by, meta, w), table_v(by, meta, w)
        if not iv:
            continue
        runs = by[f"matmul_w{w}_{SIZES[0]}_off"]["runs"]
        print(f"Table IV, {what}, {runs} repetitions (medians; ratios: "
              "median (min-max)):\n")
        print("\n".join(iv) + "\n")
        print(f"Schedule quality, {what}:\n")
        print("\n".join(table_quality(by, w)) + "\n")
        print(f"Table V, {what}, {SIZES[-1]}x{SIZES[-1]} (medians):\n")
        print("\n".join(v) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
